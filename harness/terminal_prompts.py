"""Questions the agent puts to the person at the terminal: tool approval, `ask_user`/`request_user_input`.

An answer counts only when it was typed after the question was shown (in the chat, through its line
editor: Esc is no answer, a number that is no option asks again). Keys pressed while a turn
was still streaming (an Enter to see more, a `y` meant for something else) wait in the terminal's
input queue and would answer the next question unseen, so each question first discards that queue
(`discard_type_ahead`, termios' `tcflush`). An empty line chooses nothing: an approval is declined, a
question goes unanswered (the model is told so), and the plan picker keeps planning.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from ctxscope.harness.line_editor import Escaped, active_editor
from ctxscope.harness.tools import Answer, ApprovalRequest, Question

__all__ = ["discard_type_ahead", "terminal_approver", "terminal_ask"]


def discard_type_ahead(stream: TextIO | None = None) -> None:
    """Drop input typed before now when `stream` (default stdin) is a terminal; else do nothing.

    A pipe has no type-ahead to tell apart: its lines are the answers, in order.
    """
    stream = stream or sys.stdin
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError):
        return  # a test's StringIO, a closed stream
    if not os.isatty(fd):
        return
    try:
        import termios  # POSIX only; elsewhere there is no queue to flush this way
    except ImportError:
        return
    try:
        termios.tcflush(fd, termios.TCIFLUSH)
    except termios.error:
        pass


def _read(prompt: str) -> str:
    """One answer line: through the chat's line editor on a terminal (Esc: `Escaped`), else stdin."""
    editor = active_editor()
    if editor is not None:
        return editor.answer(prompt)
    sys.stderr.write(prompt)
    sys.stderr.flush()
    discard_type_ahead()
    return input()


def terminal_approver(request: ApprovalRequest) -> bool:
    """Ask on the terminal whether a tool action may run (only `y`/`yes` typed now approves)."""
    sys.stderr.write(f"\napprove {request.tool}: {request.summary}\n  ({request.reason})\n")
    try:
        return _read("[y/N] ").strip().lower() in ("y", "yes")
    except (EOFError, Escaped):
        return False


def terminal_ask(questions: list[Question]) -> dict[str, Answer]:
    """Ask structured questions on the terminal: a number picks an option (several numbers, comma
    separated, for a multi-select question), other text is the answer, an empty line or Esc leaves
    the question unanswered (it does not pick the recommended option); a number that is no option
    asks again."""
    answers: dict[str, Answer] = {}
    for q in questions:
        answer = _ask_one(q)
        if answer:
            answers[q.id] = answer
    return answers


def _ask_one(q: Question) -> Answer | None:
    options = q.options
    sys.stderr.write(f"\n{q.question}\n")
    for n, opt in enumerate(options, 1):
        sys.stderr.write(f"  {n}. {opt.label} — {opt.description}\n")
    several = "numbers, comma separated" if q.multi_select else "number"
    while True:
        try:
            raw = _read(f"  choice ({several} or text; Enter or Esc = no answer): ").strip()
        except (EOFError, Escaped):
            return None
        if not raw:
            return None
        parts = [p.strip() for p in raw.split(",")] if q.multi_select else [raw]
        if not all(p.isdigit() for p in parts):
            return raw  # the person's own words
        picked = [int(p) for p in parts]
        if all(1 <= n <= len(options) for n in picked):
            labels = [options[n - 1].label for n in dict.fromkeys(picked)]
            return labels if q.multi_select else labels[0]
        sys.stderr.write(f"  {raw!r} is not one of the options: type a number from 1 to {len(options)}\n")

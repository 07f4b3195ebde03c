"""Questions the agent puts to the person at the terminal: tool approval, `ask_user`/`request_user_input`.

An answer counts only when it was typed after the question was shown. Keys pressed while a turn
was still streaming (an Enter to see more, a `y` meant for something else) wait in the terminal's
input queue and would answer the next question unseen, so each question first discards that queue
(`discard_type_ahead`, termios' `tcflush`). An empty line chooses nothing: an approval is declined, a
question goes unanswered (the model is told so), and the plan picker keeps planning.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

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


def terminal_approver(request: ApprovalRequest) -> bool:
    """Ask on the terminal whether a tool action may run (only `y`/`yes` typed now approves)."""
    sys.stderr.write(f"\napprove {request.tool}: {request.summary}\n  ({request.reason}) [y/N] ")
    sys.stderr.flush()
    discard_type_ahead()
    try:
        return input().strip().lower() in ("y", "yes")
    except EOFError:
        return False


def terminal_ask(questions: list[Question]) -> dict[str, Answer]:
    """Ask structured questions on the terminal: a number picks an option, other text is the answer,
    an empty line leaves the question unanswered (it does not pick the recommended option)."""
    answers: dict[str, Answer] = {}
    for q in questions:
        options = q.options
        sys.stderr.write(f"\n{q.question}\n")
        for n, opt in enumerate(options, 1):
            sys.stderr.write(f"  {n}. {opt.label} — {opt.description}\n")
        sys.stderr.write("  choice (number or text; Enter = no answer): ")
        sys.stderr.flush()
        discard_type_ahead()
        try:
            raw = input().strip()
        except EOFError:
            raw = ""
        if not raw:
            continue
        if raw.isdigit() and 1 <= int(raw) <= len(options):
            answers[q.id] = options[int(raw) - 1].label
        else:
            answers[q.id] = raw
    return answers

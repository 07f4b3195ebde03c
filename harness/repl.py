"""The interactive chat: a plain terminal loop; slash commands come from `harness.commands`.

Ctrl-C during a turn aborts the turn (a turn-aborted fragment is recorded) and returns to the prompt;
Ctrl-C or Ctrl-D at the prompt leaves.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from harness.commands import COMMANDS, is_command, run_command
from harness.modes.plan import PlanController
from harness.modes.plan.profiles import REVIEW_CHOICES
from harness.runtime import AgentRuntime
from proxy.errors import CtxscopeError

__all__ = ["review_menu", "run_repl"]


def _line_reader(err: TextIO) -> Callable[[str], str]:
    """`input` on a terminal; otherwise a reader whose `› ` prompt goes to stderr, so that the
    answers are all a pipe reading stdout gets."""
    if sys.stdin.isatty():
        return input

    def read(prompt: str) -> str:
        err.write(prompt)
        err.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")

    return read


def run_repl(
    runtime: AgentRuntime, read: Callable[[str], str] | None = None, err: TextIO | None = None
) -> None:
    """Read prompts until /quit or end of input."""
    err = err or sys.stderr
    read = read or _line_reader(err)
    names = " ".join(c.name for c in COMMANDS)  # from the registry, so none is left out
    err.write(f"ctxscope agent — type a task, or {names}\n")
    while True:
        try:
            line = read("› ")
        except (EOFError, KeyboardInterrupt):
            # Ctrl-D or Ctrl-C at the prompt leaves; the session file is complete as it is.
            err.write("\n")
            return
        if not line.strip():
            continue
        assert runtime.plan is not None
        before = (runtime.plan, runtime.plan.state.revision)
        if is_command(line):
            try:
                if run_command(line, runtime, err).quit:
                    return
                _review_if_submitted(runtime, before, read, err)
            except KeyboardInterrupt:  # a command that runs a turn (/plan task) is interrupted alike
                err.write("\nturn aborted\n")
            except CtxscopeError as e:
                err.write(f"error: {e}\n")
            continue
        assert runtime.agent is not None
        try:
            runtime.agent.run_turn(line)
            _review_if_submitted(runtime, before, read, err)
        except KeyboardInterrupt:
            err.write("\nturn aborted\n")
        except CtxscopeError as e:
            # The session file is intact: the person can retry or /quit and resume later.
            err.write(f"error: {e}\n")


def review_menu(profile: str) -> str:
    """The review picker's text for `profile` (first choice = Enter)."""
    lines = [f"  {n}. {label}" for n, (_, label) in enumerate(REVIEW_CHOICES[profile], 1)]
    return "Implement this plan?\n" + "\n".join(lines) + "\n"


def _review_if_submitted(
    runtime: AgentRuntime, before: tuple[PlanController, int], read: Callable[[str], str], err: TextIO
) -> None:
    """After a turn that submitted a plan: the profile's review choices (Enter = the first)."""
    plan, revision = before
    if runtime.plan is not plan or plan.state.revision == revision or not plan.planning:
        return
    choices = REVIEW_CHOICES[plan.state.profile]
    err.write(review_menu(plan.state.profile))
    try:
        raw = read("choice [1]: ").strip() or "1"
    except (EOFError, KeyboardInterrupt):
        raw = ""
    action = choices[int(raw) - 1][0] if raw.isdigit() and 1 <= int(raw) <= len(choices) else "stay"
    if action in ("implement", "fresh"):
        plan.approve(plan.state.revision, fresh=action == "fresh")
    elif action == "exit":
        plan.exit()
        err.write("left plan mode; the draft is kept\n")
    elif action == "revise":
        feedback = read("feedback: ").strip()
        if feedback:
            plan.agent.run_turn(feedback)  # a typed message while planning is a revision request
    else:
        err.write("still planning: send feedback to revise, /plan approve to implement\n")

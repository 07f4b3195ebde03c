"""The interactive chat: a plain terminal loop; slash commands come from `ctxscope.harness.commands`.

A prompt whose turn makes a goal active (`create_goal`) goes on with goal turns until the goal stops.
Ctrl-C during a turn aborts the turn (a turn-aborted fragment is recorded; a goal is paused) and
returns to the prompt;
Ctrl-C or Ctrl-D at the prompt leaves.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from ctxscope.harness.commands import COMMANDS, is_command, run_command
from ctxscope.harness.goal.runner import run_prompt
from ctxscope.harness.modes.plan import PlanController
from ctxscope.harness.modes.plan.profiles import REVIEW_CHOICES
from ctxscope.harness.runtime import AgentRuntime
from ctxscope.harness.terminal_prompts import discard_type_ahead
from ctxscope.proxy.errors import CtxscopeError

__all__ = ["STILL_PLANNING", "review", "review_menu", "run_repl"]


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
        # `/plan` while planning shows the draft; the picker follows it, as after a submission.
        plan = runtime.plan
        shows_draft = line.strip() == "/plan" and plan.planning and plan.state.draft is not None
        if is_command(line):
            try:
                if run_command(line, runtime, err).quit:
                    return
                if shows_draft and runtime.plan is before[0]:
                    review(runtime.plan, read, err)
                else:
                    _review_if_submitted(runtime, before, read, err)
            except KeyboardInterrupt:  # a command that runs a turn (/plan task) is interrupted alike
                err.write("\nturn aborted\n")
            except CtxscopeError as e:
                err.write(f"error: {e}\n")
            continue
        assert runtime.agent is not None
        try:
            run_prompt(runtime.agent, line)
            _review_if_submitted(runtime, before, read, err)
        except KeyboardInterrupt:
            err.write("\nturn aborted\n")
        except CtxscopeError as e:
            # The session file is intact: the person can retry or /quit and resume later.
            err.write(f"error: {e}\n")


def review_menu(profile: str) -> str:
    """The review picker's text for `profile` (a number chooses; Enter alone keeps planning)."""
    lines = [f"  {n}. {label}" for n, (_, label) in enumerate(REVIEW_CHOICES[profile], 1)]
    return "Implement this plan?\n" + "\n".join(lines) + "\n"


STILL_PLANNING = "still planning: send feedback to revise, /plan approve to implement"


def _submitted(runtime: AgentRuntime, before: tuple[PlanController, int]) -> bool:
    plan, revision = before
    return runtime.plan is plan and plan.state.revision != revision and plan.planning


def _review_if_submitted(
    runtime: AgentRuntime, before: tuple[PlanController, int], read: Callable[[str], str], err: TextIO
) -> None:
    """After a turn that submitted a plan: the review picker (see `review`)."""
    if _submitted(runtime, before):
        review(before[0], read, err)


def review(plan: PlanController, read: Callable[[str], str], err: TextIO) -> None:
    """The profile's review choices for the latest draft, until the person's choice is made.

    Only a choice typed after the picker is shown counts: type-ahead is discarded first, and an
    empty line keeps planning (as KnightCode's Escape does; never "implement"). A revision that a
    choice asks for ("Revise", "request changes", a keep-planning note) is reviewed the same way.
    """
    while True:
        choices = REVIEW_CHOICES[plan.state.profile]
        err.write(review_menu(plan.state.profile))
        err.flush()
        discard_type_ahead()
        try:
            raw = read(f"choice [1-{len(choices)}, Enter = keep planning]: ").strip()
        except (EOFError, KeyboardInterrupt):
            raw = ""
        chosen = raw.isdigit() and 1 <= int(raw) <= len(choices)
        action = choices[int(raw) - 1][0] if chosen else "stay"
        if raw and not chosen:
            err.write(f"{raw!r} is not one of the choices\n")
        if action in ("implement", "fresh"):
            plan.approve(plan.state.revision, fresh=action == "fresh")
            return
        if action == "exit":
            plan.exit()
            err.write("left plan mode; the draft is kept\n")
            return
        note = ""
        if action == "revise":
            note = _read_note(read, "feedback: ")
        elif chosen and _asks_note(plan):
            note = _read_note(read, "note (optional, Enter for none): ")
        if not note:
            err.write(STILL_PLANNING + "\n")
            return
        revision = plan.state.revision
        plan.agent.run_turn(note)  # a typed message while planning is a revision request
        if plan.state.revision == revision or not plan.planning:
            return  # no new revision (a question, an answer): back to the prompt


def _asks_note(plan: PlanController) -> bool:
    """Whether the profile's keep-planning choice takes a note ("Keep planning (optional note)")."""
    return any(a == "stay" and "note" in label for a, label in REVIEW_CHOICES[plan.state.profile])


def _read_note(read: Callable[[str], str], prompt: str) -> str:
    discard_type_ahead()
    try:
        return read(prompt).strip()
    except (EOFError, KeyboardInterrupt):
        return ""

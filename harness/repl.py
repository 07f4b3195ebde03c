"""The interactive chat; slash commands come from `ctxscope.harness.commands`.

On a terminal the prompt is a line editor (`ctxscope.harness.line_editor`): history, Shift+Tab toggles
plan mode in the codex and claude profiles (as Codex and Claude Code do; knightcode enters with
`/plan`), control keys never become text, Esc at a picker keeps planning. Keys typed while a turn
runs are kept for the next prompt in the knightcode profile (KnightCode keeps queued input) and
dropped with a one-line notice in codex and claude; they never answer a picker.
A prompt whose turn makes a goal active (`create_goal`) goes on with goal turns until the goal stops.
Ctrl-C during a turn aborts the turn (a turn-aborted fragment is recorded; a goal is paused, and the
chat says so) and returns to the prompt; Ctrl-C or Ctrl-D at the prompt leaves.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from ctxscope.harness.commands import COMMANDS, is_command, run_command
from ctxscope.harness.goal.runner import run_prompt
from ctxscope.harness.line_editor import Escaped, LineEditor, on_terminal
from ctxscope.harness.modes.plan import PlanController
from ctxscope.harness.modes.plan.profiles import KEEPS_TYPE_AHEAD, KEY_TOGGLE_PROFILES, REVIEW_CHOICES
from ctxscope.harness.runtime import AgentRuntime
from ctxscope.harness.terminal_prompts import discard_type_ahead
from ctxscope.proxy.errors import CtxscopeError
from ctxscope.proxy.home import ctxscope_home

__all__ = ["STILL_PLANNING", "review", "review_menu", "run_repl", "toggle_plan_mode"]

Reader = Callable[[str], str]


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


def toggle_plan_mode(runtime: AgentRuntime) -> str:
    """Shift+Tab: plan mode on or off (codex and claude); the line the chat shows about it."""
    plan = runtime.plan
    if plan is None:
        return "no agent is running"
    if plan.state.profile not in KEY_TOGGLE_PROFILES:
        return f"Shift+Tab toggles plan mode in the {' and '.join(KEY_TOGGLE_PROFILES)} profiles; here use /plan"
    try:
        if plan.planning:
            plan.exit()
            return "plan mode off; the draft is kept (Shift+Tab plans again)"
        plan.enter()
    except CtxscopeError as e:  # a key press must not end the prompt: say it, as a command would
        return f"error: {e}"
    return "plan mode on: send a task (Shift+Tab leaves)"


def _editor(runtime: AgentRuntime, err: TextIO) -> LineEditor:
    plan = runtime.plan
    profile = plan.state.profile if plan is not None else "codex"
    return LineEditor(
        err,
        history=ctxscope_home() / "agent-history",
        toggle=lambda: toggle_plan_mode(runtime),
        mode_label=lambda: "plan " if runtime.plan is not None and runtime.plan.planning else "",
        keep_type_ahead=profile in KEEPS_TYPE_AHEAD,
    )


def run_repl(runtime: AgentRuntime, read: Reader | None = None, err: TextIO | None = None) -> None:
    """Read prompts until /quit or end of input (`read`: a test's lines; default: the terminal)."""
    err = err or sys.stderr
    editor = _editor(runtime, err) if read is None and on_terminal() else None
    try:
        _chat(runtime, editor.prompt if editor else read or _line_reader(err), err, editor)
    finally:
        if editor is not None:
            editor.close()


def _chat(runtime: AgentRuntime, read: Reader, err: TextIO, editor: LineEditor | None) -> None:
    answer = editor.answer if editor is not None else read
    names = " ".join(c.name for c in COMMANDS)  # from the registry, so none is left out
    keys = " · Shift+Tab: plan mode" if editor is not None and _toggles(runtime) else ""
    err.write(f"ctxscope agent — type a task, or {names}{keys}\n")
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
        goal_before = _goal_status(runtime)
        try:
            with _turn(editor):
                if is_command(line):
                    if run_command(line, runtime, err).quit:
                        return
                else:
                    assert runtime.agent is not None
                    run_prompt(runtime.agent, line)
            if shows_draft and runtime.plan is before[0]:
                review(runtime.plan, answer, err, editor)
            else:
                _review_if_submitted(runtime, before, answer, err, editor)
        except KeyboardInterrupt:  # a command that runs a turn (/plan task) is interrupted alike
            err.write("\n" + _aborted(runtime, goal_before) + "\n")
        except CtxscopeError as e:
            # The session file is intact: the person can retry or /quit and resume later.
            err.write(f"error: {e}\n")


@contextmanager
def _turn(editor: LineEditor | None) -> Iterator[None]:
    if editor is None:
        yield
        return
    with editor.turn():
        yield


def _toggles(runtime: AgentRuntime) -> bool:
    return runtime.plan is not None and runtime.plan.state.profile in KEY_TOGGLE_PROFILES


def _goal_status(runtime: AgentRuntime) -> str | None:
    goal = runtime.agent.goals.current if runtime.agent is not None else None
    return goal.status if goal is not None else None


def _aborted(runtime: AgentRuntime, goal_before: str | None) -> str:
    """What Ctrl-C did: the turn, and the goal it paused if it paused one."""
    if _goal_status(runtime) == "paused" and goal_before != "paused":
        return "turn aborted; the goal is paused (/goal resume continues it)"
    return "turn aborted"


def review_menu(profile: str) -> str:
    """The review picker's text for `profile` (a number chooses; Enter alone keeps planning)."""
    lines = [f"  {n}. {label}" for n, (_, label) in enumerate(REVIEW_CHOICES[profile], 1)]
    return "Implement this plan?\n" + "\n".join(lines) + "\n"


STILL_PLANNING = "still planning: send feedback to revise, /plan approve to implement"


def _submitted(runtime: AgentRuntime, before: tuple[PlanController, int]) -> bool:
    plan, revision = before
    return runtime.plan is plan and plan.state.revision != revision and plan.planning


def _review_if_submitted(
    runtime: AgentRuntime,
    before: tuple[PlanController, int],
    answer: Reader,
    err: TextIO,
    editor: LineEditor | None = None,
) -> None:
    """After a turn that submitted a plan: the review picker (see `review`)."""
    if _submitted(runtime, before):
        review(before[0], answer, err, editor)


def _choose(answer: Reader, err: TextIO, count: int) -> int | None:
    """The number picked (1..count), or None to keep planning (Enter, Esc, end of input); a line
    that is no choice asks again, so it never falls through to the model as a message."""
    while True:
        discard_type_ahead()
        try:
            raw = answer(f"choice [1-{count}, Enter or Esc = keep planning]: ").strip()
        except (EOFError, KeyboardInterrupt, Escaped):
            return None
        if not raw:
            return None
        if raw.isdigit() and 1 <= int(raw) <= count:
            return int(raw)
        err.write(f"{raw!r} is not one of the choices: type a number from 1 to {count}\n")


def review(plan: PlanController, answer: Reader, err: TextIO, editor: LineEditor | None = None) -> None:
    """The profile's review choices for the latest draft, until the person's choice is made.

    Only a choice typed after the picker is shown counts: type-ahead is set aside first, an empty
    line or Esc keeps planning (as KnightCode's Escape does; never "implement"), and a line that is no
    choice asks again. A revision that a choice asks for ("Revise", "request changes", a
    keep-planning note) is reviewed the same way.
    """
    while True:
        choices = REVIEW_CHOICES[plan.state.profile]
        err.write(review_menu(plan.state.profile))
        err.flush()
        number = _choose(answer, err, len(choices))
        action = choices[number - 1][0] if number is not None else "stay"
        if action in ("implement", "fresh"):
            with _turn(editor):
                plan.approve(plan.state.revision, fresh=action == "fresh")
            return
        if action == "exit":
            plan.exit()
            err.write("left plan mode; the draft is kept\n")
            return
        note = ""
        if action == "revise":
            note = _read_note(answer, "feedback: ")
        elif number is not None and _asks_note(plan):
            note = _read_note(answer, "note (optional, Enter for none): ")
        if not note:
            err.write(STILL_PLANNING + "\n")
            return
        revision = plan.state.revision
        with _turn(editor):
            plan.agent.run_turn(note)  # a typed message while planning is a revision request
        if plan.state.revision == revision or not plan.planning:
            return  # no new revision (a question, an answer): back to the prompt


def _asks_note(plan: PlanController) -> bool:
    """Whether the profile's keep-planning choice takes a note ("Keep planning (optional note)")."""
    return any(a == "stay" and "note" in label for a, label in REVIEW_CHOICES[plan.state.profile])


def _read_note(answer: Reader, prompt: str) -> str:
    discard_type_ahead()
    try:
        return answer(prompt).strip()
    except (EOFError, KeyboardInterrupt, Escaped):
        return ""

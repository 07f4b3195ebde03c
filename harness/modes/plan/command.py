"""`/plan`: the slash command of plan mode (registered in `ctxscope.harness.commands`).

    /plan                     enter plan mode; while planning, show the draft (or say there is none)
    /plan <task>              enter plan mode and send the task
    /plan approve [N] [fresh] approve revision N (default: the latest) and implement it, in this
                              session or, with `fresh`, in a new one ("clear context and implement")
    /plan diff                what changed between the last two revisions
    /plan exit                leave plan mode without implementing (the draft stays)

What a person asked to see goes to `out`; remarks go out as notices (stderr in print mode, so `-p`
keeps stdout for the plan or the answer). Refusals raise `ConfigError` with one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from ctxscope.harness.command_result import CommandResult
from ctxscope.harness.modes.plan.texts import NO_DRAFT
from ctxscope.proxy.errors import ConfigError

if TYPE_CHECKING:
    from ctxscope.harness.modes.plan.controller import PlanController
    from ctxscope.harness.runtime import AgentRuntime

__all__ = ["PLAN_USAGE", "plan_command"]

PLAN_USAGE = "/plan [TASK | approve [N] [fresh] | diff | exit]"


def _controller(runtime: AgentRuntime) -> PlanController:
    if runtime.plan is None or runtime.agent is None:
        raise ConfigError("no agent is running: start the runtime before sending commands")
    return runtime.plan


def plan_command(runtime: AgentRuntime, arg: str, out: TextIO) -> CommandResult:
    """Handle `/plan ...` (see the module docstring)."""
    plan = _controller(runtime)
    word, _, rest = arg.partition(" ")
    if word == "approve":
        revision, fresh = _approve_args(rest.split())
        done = plan.approve(revision, fresh=fresh)
        return CommandResult(turn=done.turn)
    if word == "diff" and not rest:
        diff, n = plan.state.diff(), plan.state.revision
        if diff:
            out.write(diff)
        elif n >= 2:
            plan.agent.notice(f"revisions {n - 1} and {n} are identical: nothing changed")
        else:
            plan.agent.notice(f"no diff yet: {n} revision(s) so far; a diff compares the last two")
        return CommandResult()
    if word == "exit" and not rest:
        plan.exit()
        plan.agent.notice("left plan mode; the draft is kept (/plan to plan again)")
        return CommandResult()
    if not arg:
        if not plan.planning:
            plan.enter()
            plan.agent.notice("plan mode on: send a task; /plan approve implements the submitted plan")
        elif plan.state.draft is None:
            plan.agent.notice(NO_DRAFT)
        else:
            out.write(f"plan revision {plan.state.revision}:\n{plan.state.draft}")
        return CommandResult()
    plan.enter()
    return CommandResult(turn=plan.agent.run_turn(arg))


def _approve_args(words: list[str]) -> tuple[int | None, bool]:
    revision: int | None = None
    fresh = False
    for word in words:
        if word == "fresh" and not fresh:
            fresh = True
        elif word.isdigit() and revision is None and int(word) > 0:
            revision = int(word)
        else:
            raise ConfigError(f"bad /plan approve argument {word!r}: use /plan approve [N] [fresh]")
    return revision, fresh

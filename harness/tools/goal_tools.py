"""The goal tools in Codex's schemas: `get_goal`, `create_goal {objective, token_budget?}` and
`update_goal {status: complete|blocked|paused}`.

All three answer with the same JSON (`ctxscope.harness.goal.goal_payload`). They change the session's
`GoalBook` (in the tool context); the agent records each change and runs goal turns while the goal
is active, so a goal created in a normal turn starts goal turns once that turn ends.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.goal.state import goal_payload
from ctxscope.harness.tools.base import ToolError, ToolKind, ToolResult, function_spec, parse_args
from ctxscope.harness.tools.call_context import ToolContext

__all__ = ["GOAL_TOOLS", "CreateGoal", "GetGoal", "UpdateGoal"]


class GetGoal:
    """`get_goal`: the current goal, its usage and budget."""

    name = "get_goal"
    kind: ToolKind = "function"

    def spec(self) -> dict[str, Any]:
        return function_spec(
            self.name,
            "Returns the thread's current goal: objective, status, tokens used, token budget and time spent.",
            {},
            [],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(goal_payload(ctx.goal.current))


class _CreateArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    objective: str = Field(min_length=1)
    token_budget: int | None = Field(default=None, gt=0)


class CreateGoal:
    """`create_goal`: start a goal, only when the user explicitly asked for one."""

    name = "create_goal"
    kind: ToolKind = "function"

    def spec(self) -> dict[str, Any]:
        return function_spec(
            self.name,
            "Starts a thread goal that the harness keeps you working on across turns. Use it only when "
            "the user explicitly asks you to pursue a goal; never on your own initiative.",
            {
                "objective": {"type": "string", "description": "What must be true when the goal is done."},
                "token_budget": {
                    "type": "integer",
                    "description": "Optional limit on the tokens the goal's turns may use.",
                },
            },
            ["objective"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        a = parse_args(self.name, _CreateArgs, args)
        current = ctx.goal.current
        if current is not None and current.status in ("active", "paused"):
            raise ToolError(
                f"a goal is already set ({current.status}): finish it with update_goal before creating "
                "another one"
            )
        return ToolResult(goal_payload(ctx.goal.set(a.objective.strip(), a.token_budget)))


class _UpdateArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: Literal["complete", "blocked", "paused"]


class UpdateGoal:
    """`update_goal`: the model marks the goal complete, blocked or paused."""

    name = "update_goal"
    kind: ToolKind = "function"

    def spec(self) -> dict[str, Any]:
        return function_spec(
            self.name,
            'Changes the status of the thread goal. Use "complete" only after checking every requirement '
            'of the objective against evidence; "blocked" only when the same obstacle has stopped you '
            'repeatedly and no other path is left; "paused" when the user asked to stop for now. '
            "Goal turns stop after this turn unless the status stays active.",
            {
                "status": {
                    "type": "string",
                    "enum": ["complete", "blocked", "paused"],
                    "description": "The goal's new status.",
                }
            },
            ["status"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        a = parse_args(self.name, _UpdateArgs, args)
        if ctx.goal.current is None:
            raise ToolError("no goal is set: there is nothing to update")
        goal = ctx.goal.set_status(a.status)
        return ToolResult(goal_payload(goal, completion_report=a.status == "complete"))


GOAL_TOOLS = (GetGoal, CreateGoal, UpdateGoal)

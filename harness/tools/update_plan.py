"""`update_plan`: the model's TODO checklist, replaced as a whole on each call.

The checklist lives in `ctx.plan` so the agent loop and a UI can show it. At most one step may be
`in_progress`. In Plan mode the router's gate refuses this tool before it runs (Codex behaviour).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.tools.base import ToolError, ToolKind, ToolResult, function_spec, parse_args
from ctxscope.harness.tools.call_context import PLAN_STATUSES, PlanStep, ToolContext


class _Step(BaseModel):
    model_config = ConfigDict(extra="ignore")
    step: str = Field(min_length=1)
    status: Literal["pending", "in_progress", "completed"]


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    explanation: str | None = None
    plan: list[_Step]


class UpdatePlan:
    """The `update_plan` tool."""

    name = "update_plan"
    kind: ToolKind = "function"

    def spec(self) -> dict[str, Any]:
        """Wire spec."""
        return function_spec(
            self.name,
            "Updates the task plan: a short checklist of steps, each pending, in_progress or completed. "
            "Send the whole list each time; at most one step may be in_progress.",
            {
                "explanation": {"type": "string", "description": "Why the plan changed (optional)."},
                "plan": {
                    "type": "array",
                    "description": "The steps, in order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "string"},
                            "status": {"type": "string", "enum": list(PLAN_STATUSES)},
                        },
                        "required": ["step", "status"],
                        "additionalProperties": False,
                    },
                },
            },
            ["plan"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Validate and store the checklist."""
        a = parse_args(self.name, _Args, args)
        active = [s.step for s in a.plan if s.status == "in_progress"]
        if len(active) > 1:
            raise ToolError(
                f"invalid arguments for update_plan: at most one step may be in_progress, got {len(active)} "
                f"({'; '.join(active)}); the plan was not changed"
            )
        ctx.plan.steps = [PlanStep(s.step, s.status) for s in a.plan]
        ctx.plan.explanation = a.explanation
        ctx.plan.revision += 1
        return ToolResult("Plan updated")

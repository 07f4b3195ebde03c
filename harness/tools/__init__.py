"""The agent's tools: one module per tool, a router that shows and dispatches them, and the rules.

    ToolRouter(ctx, enabled=None)   .specs() -> tools[] for the next request
                                    .handle(call_item) -> exactly one output item (never raises)
                                    .mode (read from ctx.mode) / .set_gate(gate)
    ToolContext                     cwd, workspace roots, sandbox mode, approval policy, prompts, plan,
                                    and the session's current mode (a `ModeView`; `NamedMode` standalone)
    ToolGate / GateRule             which tools a mode hides or refuses (plan mode adds rules)
    Tool / ToolResult / ToolError   the protocol a tool implements

Sandbox modes and approval policies are enforced here, in the tool layer (see `sandbox.py`).
"""

from __future__ import annotations

from harness.tools.base import Tool, ToolError, ToolResult
from harness.tools.call_context import (
    APPROVAL_POLICIES,
    SANDBOX_MODES,
    Answer,
    ApprovalRequest,
    Approver,
    AskUser,
    ModeView,
    NamedMode,
    PlanState,
    PlanStep,
    Question,
    QuestionOption,
    ToolContext,
)
from harness.tools.gate import (
    PLAN_MODE,
    GateRule,
    ToolGate,
    in_modes,
    outside_modes,
    recognise_still_planning,
    still_planning,
)
from harness.tools.router import FILE_TOOLS, TOOL_NAMES, ToolOutcome, ToolRouter, default_tools
from harness.tools.sandbox import is_known_safe_command

__all__ = [
    "FILE_TOOLS",
    "APPROVAL_POLICIES",
    "PLAN_MODE",
    "SANDBOX_MODES",
    "TOOL_NAMES",
    "Answer",
    "ApprovalRequest",
    "Approver",
    "AskUser",
    "GateRule",
    "ModeView",
    "NamedMode",
    "PlanState",
    "PlanStep",
    "Question",
    "QuestionOption",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolGate",
    "ToolOutcome",
    "ToolResult",
    "ToolRouter",
    "default_tools",
    "in_modes",
    "is_known_safe_command",
    "outside_modes",
    "recognise_still_planning",
    "still_planning",
]

"""The agent's tools: one module per tool, a router that shows and dispatches them, and the rules.

    ToolRouter(ctx, enabled=None)   .specs() -> tools[] for the next request
                                    .handle(call_item) -> exactly one output item (never raises)
                                    .mode (read from ctx.mode) / .set_gate(gate)
    ToolContext                     cwd, workspace roots, sandbox mode, approval policy, prompts, plan,
                                    and the session's current mode (a `ModeView`; `NamedMode` standalone)
    ToolGate / GateRule             which tools a mode hides or refuses (plan mode adds rules)
    Tool / ToolResult / ToolError   the protocol a tool implements

Sandbox modes and approval policies are checked here, in the tool layer (`sandbox.py`); the
commands then run confined by the OS (`ctxscope.harness.sandbox`: Landlock and namespaces).

Names load on first use, so the inspector's `ctxscope.harness.tools.gate` (the plan-mode recogniser) comes
without every tool and the agent events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:  # what the names resolve to, for type checkers and editors
    from ctxscope.harness.tools.base import Tool, ToolError, ToolResult
    from ctxscope.harness.tools.call_context import (
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
    from ctxscope.harness.tools.gate import (
        PLAN_MODE,
        GateRule,
        ToolGate,
        in_modes,
        outside_modes,
        recognise_still_planning,
        still_planning,
    )
    from ctxscope.harness.tools.known_safe import is_known_safe_command
    from ctxscope.harness.tools.router import FILE_TOOLS, TOOL_NAMES, ToolOutcome, ToolRouter, default_tools

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

_WHERE = {
    "Tool": "ctxscope.harness.tools.base",
    "ToolError": "ctxscope.harness.tools.base",
    "ToolResult": "ctxscope.harness.tools.base",
    "APPROVAL_POLICIES": "ctxscope.harness.tools.call_context",
    "SANDBOX_MODES": "ctxscope.harness.tools.call_context",
    "Answer": "ctxscope.harness.tools.call_context",
    "ApprovalRequest": "ctxscope.harness.tools.call_context",
    "Approver": "ctxscope.harness.tools.call_context",
    "AskUser": "ctxscope.harness.tools.call_context",
    "ModeView": "ctxscope.harness.tools.call_context",
    "NamedMode": "ctxscope.harness.tools.call_context",
    "PlanState": "ctxscope.harness.tools.call_context",
    "PlanStep": "ctxscope.harness.tools.call_context",
    "Question": "ctxscope.harness.tools.call_context",
    "QuestionOption": "ctxscope.harness.tools.call_context",
    "ToolContext": "ctxscope.harness.tools.call_context",
    "PLAN_MODE": "ctxscope.harness.tools.gate",
    "GateRule": "ctxscope.harness.tools.gate",
    "ToolGate": "ctxscope.harness.tools.gate",
    "in_modes": "ctxscope.harness.tools.gate",
    "outside_modes": "ctxscope.harness.tools.gate",
    "recognise_still_planning": "ctxscope.harness.tools.gate",
    "still_planning": "ctxscope.harness.tools.gate",
    "FILE_TOOLS": "ctxscope.harness.tools.router",
    "TOOL_NAMES": "ctxscope.harness.tools.router",
    "ToolOutcome": "ctxscope.harness.tools.router",
    "ToolRouter": "ctxscope.harness.tools.router",
    "default_tools": "ctxscope.harness.tools.router",
    "is_known_safe_command": "ctxscope.harness.tools.known_safe",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

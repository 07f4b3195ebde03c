"""The tool router: which tools the model sees at each step, and one output item for every call.

`specs()` is the `tools[]` snapshot for the next request, in a fixed order, filtered by the enabled
set and the mode gate. `handle(item)` takes a `function_call` or `custom_tool_call` item and always
returns exactly one matching output item with the same `call_id`: unknown tools, arguments that are
not JSON, gate refusals, sandbox denials, declined approvals, timeouts and exceptions inside a tool
all become output text, so the model always learns what happened. `dispatch(item)` returns the same
item plus the `ToolResult`, for callers that want to show success/failure.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ctxscope.harness.tools.apply_patch import ApplyPatch
from ctxscope.harness.tools.base import Tool, ToolError, ToolResult
from ctxscope.harness.tools.call_context import ToolContext
from ctxscope.harness.tools.exec_command import ExecCommand
from ctxscope.harness.tools.exec_sessions import SessionManager
from ctxscope.harness.tools.gate import ToolGate
from ctxscope.harness.tools.goal_tools import CreateGoal, GetGoal, UpdateGoal
from ctxscope.harness.tools.grep_files import GrepFiles
from ctxscope.harness.tools.list_dir import ListDir
from ctxscope.harness.tools.read_file import ReadFile
from ctxscope.harness.tools.request_user_input import RequestUserInput
from ctxscope.harness.tools.update_plan import UpdatePlan
from ctxscope.harness.tools.view_image import ViewImage
from ctxscope.harness.tools.write_stdin import WriteStdin
from ctxscope.proxy.errors import ConfigError

CALL_TYPES = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}


def default_tools() -> list[Tool]:
    """The built-in tools, in the order they appear in `tools[]`."""
    sessions = SessionManager()  # exec_command starts sessions, write_stdin drives them
    # Codex 0.169's order for the tools it has too; update_plan and the file tools are ctxscope's.
    return [
        ExecCommand(sessions),
        WriteStdin(sessions),
        RequestUserInput(),
        ApplyPatch(),
        ViewImage(),
        UpdatePlan(),
        ReadFile(),
        ListDir(),
        GrepFiles(),
        GetGoal(),
        CreateGoal(),
        UpdateGoal(),
    ]


TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in default_tools())
FILE_TOOLS: tuple[str, ...] = ("read_file", "list_dir", "grep_files")
"""ctxscope's own file tools (Codex reads files with exec_command); `file_tools = false` hides them."""


@dataclass(frozen=True)
class ToolOutcome:
    """One handled call: the wire output item and what the tool reported."""

    item: dict[str, Any]
    result: ToolResult
    tool: str


class ToolRouter:
    """Routes tool calls for one session; see the module docstring."""

    def __init__(
        self,
        ctx: ToolContext,
        enabled: set[str] | None = None,
        *,
        tools: Iterable[Tool] | None = None,
        gate: ToolGate | None = None,
        user_input_only_in_plan: bool = False,
    ) -> None:
        """`enabled` limits the visible tools (None = all); `tools` replaces the built-in set.

        `user_input_only_in_plan=True` applies Codex's rule that `request_user_input` is refused
        outside Plan mode; it is off by default (see `gate.py`). A given `gate` wins over the flag.
        """
        self.ctx = ctx
        self.tools: dict[str, Tool] = {t.name: t for t in (default_tools() if tools is None else tools)}
        if enabled is not None:
            unknown = sorted(set(enabled) - set(self.tools))
            if unknown:
                raise ConfigError(
                    f"unknown tool(s) {', '.join(unknown)}; known tools: {', '.join(self.tools)}"
                )
        self.enabled = set(self.tools) if enabled is None else set(enabled)
        self.withheld: set[str] = set()
        """Tools the current model's catalog entry does not offer."""
        self.gate = (
            gate if gate is not None else ToolGate.default(user_input_only_in_plan=user_input_only_in_plan)
        )

    @property
    def mode(self) -> str:
        """The name of the session's current mode, read from the tool context at each use."""
        return self.ctx.mode.name

    def set_gate(self, gate: ToolGate) -> None:
        """Replace the router's own gate (a mode adds rules through `gate_rules()` instead)."""
        self.gate = gate

    def active_gate(self) -> ToolGate:
        """The rules in force now: the current mode's rules first, then the router's own."""
        return self.gate.with_rules(self.ctx.mode.gate_rules())

    def set_apply_patch_tool(self, kind: str) -> None:
        """Offer apply_patch as the model's catalog entry says: `custom` (freeform), `function`, or
        `none` (not offered); a model switch may change it, as in Codex."""
        if "apply_patch" not in self.tools:
            return
        if kind == "none":
            self.withheld.add("apply_patch")
            return
        self.withheld.discard("apply_patch")
        self.tools["apply_patch"] = ApplyPatch("function" if kind == "function" else "custom")

    def visible(self) -> list[str]:
        """Names of the tools in the next request, in spec order."""
        gate, mode = self.active_gate(), self.mode
        shown = [n for n in self.tools if n in self.enabled and n not in self.withheld]
        return [n for n in shown if not gate.hidden(n, mode)]

    def specs(self) -> list[dict[str, Any]]:
        """The `tools[]` snapshot for the next request."""
        return [self.tools[n].spec() for n in self.visible()]

    def close(self) -> None:
        """Stop what tools keep running (exec sessions): the agent is exiting."""
        for tool in self.tools.values():
            close = getattr(tool, "close", None)
            if callable(close):
                close()

    def handle(self, item: dict[str, Any]) -> dict[str, Any]:
        """One output item for one call item; never raises."""
        return self.dispatch(item).item

    def dispatch(self, item: dict[str, Any]) -> ToolOutcome:
        """Like `handle`, also returning the `ToolResult`."""
        item_type = item.get("type") if isinstance(item, dict) else None
        out_type = CALL_TYPES.get(str(item_type), "function_call_output")
        call_id = str(item.get("call_id", "")) if isinstance(item, dict) else ""
        name = str(item.get("name", "")) if isinstance(item, dict) else ""
        try:
            result = self._run(item, item_type, name)
        except ToolError as e:
            result = ToolResult(str(e), success=False)
        except Exception as e:  # the model must learn what happened, whatever happened
            result = ToolResult(
                f"{name or 'tool'} failed with an internal error: {type(e).__name__}: {e}", success=False
            )
        output: Any = [dict(part) for part in result.content] if result.content else result.output
        return ToolOutcome({"type": out_type, "call_id": call_id, "output": output}, result, name)

    def _run(self, item: Any, item_type: Any, name: str) -> ToolResult:
        if item_type not in CALL_TYPES:
            raise ToolError(
                f"cannot handle an item of type {item_type!r}; expected function_call or custom_tool_call"
            )
        tool = self.tools.get(name)
        if tool is None or name not in self.enabled or name in self.withheld:
            available = ", ".join(self.visible()) or "none"
            raise ToolError(f"unknown tool {name!r}; available tools: {available}")
        refusal = self.active_gate().refusal(name, self.mode)
        if refusal is not None:
            raise ToolError(refusal)
        return tool.handle(self._arguments(item, item_type, tool), self.ctx)

    @staticmethod
    def _arguments(item: dict[str, Any], item_type: str, tool: Tool) -> dict[str, Any]:
        """The call's arguments as a dict; freeform input goes under "input"."""
        if item_type == "custom_tool_call":
            raw = item.get("input", "")
            if tool.kind == "custom":
                return {"input": raw if isinstance(raw, str) else str(raw)}
        else:
            raw = item.get("arguments", "")
        if isinstance(raw, dict):
            return raw
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return {}
        try:
            args = json.loads(raw)
        except (TypeError, json.JSONDecodeError) as e:
            if tool.kind == "custom" and isinstance(raw, str) and raw.lstrip().startswith("*** Begin"):
                return {"input": raw}  # a freeform body sent as a function call
            raise ToolError(f"arguments are not valid JSON: {e}") from e
        if not isinstance(args, dict):
            raise ToolError(f"arguments must be a JSON object, got {type(args).__name__}")
        return args

"""Test helpers for the tool layer: build a router on a temp workspace and make checked calls.

Every call made through `call()` asserts the router's core promise: exactly one output item, of the
output type matching the call type, with the same call_id and a string output.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from ctxscope.harness.tools import ApprovalRequest, Tool, ToolContext, ToolRouter

_ids = itertools.count(1)


def make_router(workspace: Path, *, tools: list[Tool] | None = None, **ctx: Any) -> ToolRouter:
    """A router over `workspace` (the cwd and only root unless `workspace_roots` is given).

    Commands get a HOME of their own: the machine's login profile (a `pyenv init` that rehashes
    into ~/.pyenv, which the OS sandbox rightly refuses) is not what these tests look at."""
    home = workspace.parent / f"{workspace.name}-home"
    home.mkdir(exist_ok=True)
    ctx["env"] = {"HOME": str(home), **(ctx.get("env") or {})}
    enabled = ctx.pop("enabled", None)
    gate = ctx.pop("gate", None)
    flag = ctx.pop("user_input_only_in_plan", False)
    context = ToolContext(cwd=workspace, **ctx)
    return ToolRouter(context, enabled, tools=tools, gate=gate, user_input_only_in_plan=flag)


def checked(router: ToolRouter, item: dict[str, Any]) -> str:
    """Hand `item` to the router, assert the one-output invariant, return the output text."""
    result = router.handle(item)
    assert isinstance(result, dict)
    expected_type = (
        "custom_tool_call_output" if item.get("type") == "custom_tool_call" else "function_call_output"
    )
    assert set(result) == {"type", "call_id", "output"}
    assert result["type"] == expected_type
    assert result["call_id"] == item.get("call_id")
    assert isinstance(result["output"], str) and result["output"]
    return result["output"]


def call(router: ToolRouter, name: str, args: Any = None, *, raw: str | None = None) -> str:
    """A `function_call` with JSON arguments (or the `raw` argument string as given)."""
    arguments = raw if raw is not None else json.dumps(args or {})
    item = {"type": "function_call", "name": name, "arguments": arguments, "call_id": f"call_{next(_ids)}"}
    return checked(router, item)


def custom_call(router: ToolRouter, name: str, text: str) -> str:
    """A freeform `custom_tool_call` with raw input."""
    item = {"type": "custom_tool_call", "name": name, "input": text, "call_id": f"ctc_{next(_ids)}"}
    return checked(router, item)


class Approver:
    """An interactive approver that answers a fixed way and remembers what it was asked."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest) -> bool:
        self.asked.append(request)
        return self.answer

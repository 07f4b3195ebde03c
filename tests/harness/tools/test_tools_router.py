"""The router: spec snapshots, one output per call whatever happens, mode gates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tools_support import call, checked, custom_call, make_router

import ctxscope.harness.tools as tools_pkg
from ctxscope.harness.tools import (
    TOOL_NAMES,
    GateRule,
    NamedMode,
    ToolContext,
    ToolGate,
    ToolResult,
    ToolRouter,
    in_modes,
    still_planning,
)
from ctxscope.harness.tools.patch_parser import PATCH_GRAMMAR
from ctxscope.proxy.errors import ConfigError


def test_public_surface_is_pinned() -> None:
    assert sorted(tools_pkg.__all__) == sorted(
        [
            "APPROVAL_POLICIES",
            "FILE_TOOLS",
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
    )
    for name in tools_pkg.__all__:
        assert hasattr(tools_pkg, name)


def test_specs_are_stable_and_wire_shaped(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    specs = router.specs()
    assert (
        [s["name"] for s in specs]
        == list(TOOL_NAMES)
        == [
            "exec_command",
            "write_stdin",
            "request_user_input",
            "apply_patch",
            "view_image",
            "update_plan",
            "read_file",
            "list_dir",
            "grep_files",
            "get_goal",
            "create_goal",
            "update_goal",
        ]
    )
    assert specs == router.specs()  # same snapshot twice
    json.dumps(specs)  # JSON-serialisable as sent
    for spec in specs:
        if spec["name"] == "apply_patch":
            assert set(spec) == {"type", "name", "description", "format"}
            assert spec["type"] == "custom"
            assert spec["format"] == {"type": "grammar", "syntax": "lark", "definition": PATCH_GRAMMAR}
        else:
            assert set(spec) == {"type", "name", "description", "strict", "parameters"}
            assert spec["type"] == "function" and spec["strict"] is False
            params = spec["parameters"]
            assert params["type"] == "object" and set(params["required"]) <= set(params["properties"])
        assert spec["description"]


def test_grammar_names_every_marker() -> None:
    markers = ["*** Begin Patch", "*** End Patch", "*** Add File: ", "*** Delete File: "]
    markers += ["*** Update File: ", "*** Move to: ", "*** End of File", '"@@"']
    for marker in markers:
        assert marker in PATCH_GRAMMAR
    assert PATCH_GRAMMAR.startswith("start:")


def test_enabled_subset_keeps_order(tmp_path: Path) -> None:
    router = make_router(tmp_path, enabled={"grep_files", "exec_command"})
    assert [s["name"] for s in router.specs()] == ["exec_command", "grep_files"]
    out = call(router, "read_file", {"path": "x"})
    assert out == "unknown tool 'read_file'; available tools: exec_command, grep_files"


def test_unknown_enabled_name_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown tool\\(s\\) shell; known tools: exec_command"):
        ToolRouter(ToolContext(cwd=tmp_path), {"shell"})


def test_unknown_tool(tmp_path: Path) -> None:
    out = call(make_router(tmp_path), "web_search", {"q": "x"})
    assert out.startswith(
        "unknown tool 'web_search'; available tools: exec_command, write_stdin, request_user_input"
    )
    out = custom_call(make_router(tmp_path), "mystery", "input")
    assert out.startswith("unknown tool 'mystery'")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("{", "arguments are not valid JSON: Expecting property name enclosed in double quotes"),
        ('{"cmd": "ls"', "arguments are not valid JSON: "),
        ("[1, 2]", "arguments must be a JSON object, got list"),
        ('"ls"', "arguments must be a JSON object, got str"),
    ],
)
def test_invalid_arguments(tmp_path: Path, raw: str, message: str) -> None:
    assert call(make_router(tmp_path), "exec_command", raw=raw).startswith(message)


def test_empty_arguments_mean_no_arguments(tmp_path: Path) -> None:
    assert call(make_router(tmp_path), "list_dir", raw="").startswith("Absolute path: ")


def test_odd_items_still_get_one_output(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    out = checked(router, {"type": "message", "call_id": "m1", "name": "exec_command"})
    assert out.startswith("cannot handle an item of type 'message'")
    item = router.handle({"type": "function_call", "name": "list_dir", "arguments": "{}"})
    assert item["call_id"] == "" and item["type"] == "function_call_output"


class Exploding:
    name = "explode"
    kind = "function"

    def spec(self) -> dict[str, Any]:
        return {"type": "function", "name": self.name, "description": "x", "strict": False, "parameters": {}}

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise KeyError("boom")


def test_exception_inside_a_tool_becomes_output(tmp_path: Path) -> None:
    router = make_router(tmp_path, tools=[Exploding()])
    outcome = router.dispatch(
        {"type": "function_call", "name": "explode", "arguments": "{}", "call_id": "x1"}
    )
    assert outcome.item == {
        "type": "function_call_output",
        "call_id": "x1",
        "output": "explode failed with an internal error: KeyError: 'boom'",
    }
    assert outcome.result.success is False and outcome.tool == "explode"


def test_plan_mode_refuses_update_plan_codex_style(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    plan = {"plan": [{"step": "a", "status": "in_progress"}]}
    router.ctx.mode = NamedMode("plan")
    assert router.mode == "plan"
    assert "update_plan" in [s["name"] for s in router.specs()]  # visible, refused at call time
    out = call(router, "update_plan", plan)
    assert out.startswith("update_plan is a TODO/checklist tool") and "not allowed in Plan mode" in out
    assert router.ctx.plan.revision == 0
    router.ctx.mode = NamedMode("default")
    assert call(router, "update_plan", plan) == "Plan updated"
    assert router.ctx.plan.revision == 1


def test_gate_rules_block_and_hide_while_planning(tmp_path: Path) -> None:
    gate = ToolGate.default().with_rules(
        [
            GateRule("apply_patch", in_modes("plan"), still_planning),
            GateRule("exec_command", in_modes("plan"), still_planning, hide=True),
        ]
    )
    router = make_router(tmp_path)
    router.set_gate(gate)
    assert "exec_command" in [s["name"] for s in router.specs()]
    router.ctx.mode = NamedMode("plan")
    assert [s["name"] for s in router.specs()] == [n for n in TOOL_NAMES if n != "exec_command"]
    out = custom_call(router, "apply_patch", "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch")
    assert out.startswith("apply_patch was refused before it ran: still planning (Plan mode).")
    assert not (tmp_path / "a.txt").exists()
    assert "update_plan is a TODO/checklist tool" in call(router, "update_plan", {"plan": []})


def test_wildcard_rule_with_exceptions(tmp_path: Path) -> None:
    rule = GateRule("*", in_modes("plan"), still_planning, except_tools=frozenset({"read_file", "list_dir"}))
    router = make_router(tmp_path, gate=ToolGate([rule]))
    router.ctx.mode = NamedMode("plan")
    assert call(router, "list_dir", {}).startswith("Absolute path:")
    assert "still planning" in call(router, "grep_files", {"pattern": "x"})


def test_codex_rule_for_user_input_outside_plan(tmp_path: Path) -> None:
    q = {
        "questions": [
            {"id": "a", "header": "H", "question": "?", "options": [{"label": "x"}, {"label": "y"}]}
        ]
    }
    router = make_router(tmp_path, user_input_only_in_plan=True)
    assert call(router, "request_user_input", q).startswith(
        "request_user_input is only available in Plan mode"
    )
    router.ctx.mode = NamedMode("plan")
    assert json.loads(call(router, "request_user_input", q))["answers"]["a"]["answers"][0] == "x"
    # Default router: allowed in default mode too (documented choice).
    assert (
        json.loads(call(make_router(tmp_path), "request_user_input", q))["answers"]["a"]["answers"][0] == "x"
    )


def test_the_current_mode_adds_its_own_rules_first(tmp_path: Path) -> None:
    # A mode's rules win over the router's own gate and leave with the mode; tools[] keeps its tools.
    submitting = GateRule("update_plan", in_modes("review"), "review mode: describe the plan instead")
    router = make_router(tmp_path)
    router.ctx.mode = NamedMode("review", rules=(submitting,))
    assert "update_plan" in [s["name"] for s in router.specs()]
    assert call(router, "update_plan", {"plan": []}) == "review mode: describe the plan instead"
    router.ctx.mode = NamedMode("default")
    assert call(router, "update_plan", {"plan": []}) == "Plan updated"

"""Each profile's planning instructions against its gate: what the prompt says runs, runs; what it says is
refused is refused before it runs (no effect in the workspace or the session); what it says is only
reported afterwards (shell) runs and is reported.

The claims are read from the words the model gets (the request's collaboration-mode fragment), not
from the definitions they are rendered from.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.context import classify_text
from ctxscope.harness.modes.plan.texts import WORKSPACE_CHANGED
from ctxscope.harness.tools import recognise_still_planning
from ctxscope.harness.tools.gate import recognise_update_plan_refused
from tests.harness.harness_support import make_repo, run_agent, write_script

SUBMISSION = {
    "codex": "in a <proposed_plan> block",
    "claude": "with exit_plan_mode(plan)",
    "knightcode": "with submit_plan(plan)",
}


def _plan_fragment(body: dict[str, Any]) -> str:
    for item in body["input"]:
        for part in item.get("content", []) if isinstance(item.get("content"), list) else []:
            match = classify_text(part.get("text", ""), item.get("role", "any"))
            if match is not None and match.kind == "collaboration_mode" and match.values.get("mode") == "plan":
                return str(match.values["text"])
    raise AssertionError("no plan-mode fragment in the request")


def _claims(text: str) -> dict[str, list[str]]:
    """The tool lists of the instructions' "what the harness enforces" part."""
    found = {}
    for key, head in (
        ("run", "Run: "),
        ("watched", "Run without a check beforehand: "),
        ("refused", "Refused before they run: "),
    ):
        match = re.search(rf"^- {re.escape(head)}(.+?)\.", text, re.MULTILINE)
        found[key] = [t.strip() for t in match.group(1).split(",")] if match else []
    return found


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name == "apply_patch":
        patch = "*** Begin Patch\n*** Add File: patched.txt\n+x\n*** End Patch"
        return {"custom_tool_call": {"name": name, "input": patch}}
    return {"function_call": {"name": name, "arguments": arguments}}


ARGUMENTS: dict[str, dict[str, Any]] = {
    "create_goal": {"objective": "ship it"},
    "update_goal": {"status": "complete"},
    "update_plan": {"plan": [{"step": "edit", "status": "in_progress"}]},
    "request_user_input": {
        "questions": [{"id": "a", "header": "h", "question": "q?", "options": [{"label": "x"}, {"label": "y"}]}]
    },
}


@pytest.mark.parametrize("profile", ["codex", "claude", "knightcode"])
def test_the_prompt_says_what_the_gate_does(tmp_path: Path, ctxscope_home: Path, profile: str) -> None:
    repo = make_repo(tmp_path / "repo")
    first = write_script(tmp_path / "probe.json", [{"text": "looking"}])
    probe = run_agent(repo, first, ["plan it"], tmp_path / "probe.jsonl", plan=True, plan_profile=profile)
    (body,) = probe.bodies()
    text = _plan_fragment(body)
    claims = _claims(text)
    declared = [t.get("name", t.get("type")) for t in body["tools"]]
    # Every tool of the request is named once, in one of the three kinds; nothing else is named.
    named = claims["run"] + claims["watched"] + claims["refused"]
    assert sorted(named) == sorted(declared) and len(set(named)) == len(named)
    assert SUBMISSION[profile] in text
    assert claims["watched"] == ["exec_command", "write_stdin"]
    # One planning turn calls every tool the prompt says is refused, and a shell command that writes.
    refused = [_call(t, ARGUMENTS.get(t, {})) for t in claims["refused"]]
    shell = _call("exec_command", {"cmd": "touch by-shell.txt"})
    script = write_script(tmp_path / "s.json", [{"output": [*refused, shell]}, {"text": "stopped"}])
    run = run_agent(repo, script, ["plan it"], tmp_path / "cap.jsonl", plan=True, plan_profile=profile)
    outputs = [i for i in run.bodies()[1]["input"] if i["type"].endswith("_call_output")]
    assert len(outputs) == len(refused) + 1
    for tool, item in zip(claims["refused"], outputs, strict=False):
        output = str(item["output"])
        if tool == "update_plan":
            assert recognise_update_plan_refused(output) and SUBMISSION[profile] in output
        else:
            assert recognise_still_planning(output) == tool and SUBMISSION[profile] in output
    # Refused before they ran: no patch applied, no goal set.
    assert not (repo / "patched.txt").exists()
    session = run.session_file.read_text()
    assert not any(json.loads(line).get("type") == "goal" for line in session.splitlines())
    # The shell command ran, unchecked beforehand, and was reported afterwards, as the prompt says.
    assert (repo / "by-shell.txt").exists() and WORKSPACE_CHANGED in str(outputs[-1]["output"])

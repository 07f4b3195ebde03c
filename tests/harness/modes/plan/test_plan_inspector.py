"""The inspector states plan mode on the timeline, from a capture of a real planning session.

A codex-profile session: enter plan mode mid-thread, a batch with a blocked edit and a shell command
that writes a file, a plan revised once, then approved and implemented. `ctxscope diff --format
json` carries the same sentences as mode events.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.runtime import AgentRuntime
from ctxscope.inspector.analysis import analyse_recording
from tests.cli_support import run_cli
from tests.harness.harness_support import make_repo, run_agent, write_script


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _plan(title: str) -> str:
    return f"Here it is.\n<proposed_plan>\n# {title}\n1. add notes\n</proposed_plan>\n"


def test_the_timeline_states_every_plan_mode_message(repo: Path, tmp_path: Path) -> None:
    batch = {
        "output": [
            {
                "custom_tool_call": {
                    "name": "apply_patch",
                    "input": "*** Begin Patch\n*** Add File: x\n+x\n*** End Patch",
                }
            },
            {
                "function_call": {
                    "name": "exec_command",
                    "arguments": {"cmd": "echo n > notes.txt", "login": False},
                }
            },
        ]
    }
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "hi"},
            batch,
            {"text": _plan("First")},
            {"text": _plan("Second")},
            {"text": "done"},
            {"text": "ok"},
        ],
    )

    def commands(runtime: AgentRuntime, i: int) -> None:
        assert runtime.plan is not None
        if i == 1:
            runtime.plan.enter()
        if i == 3:
            runtime.plan.approve(2)

    capture = tmp_path / "cap.jsonl"
    run_agent(repo, script, ["hi", "plan notes", "shorter", "unused"], capture, commands=commands)
    analysis = analyse_recording(capture)
    said = [[e.sentence for e in t.mode_events] for t in analysis.turns]
    # A submission is told on the turn whose answer held the plan (not on the next request).
    assert said == [
        [],
        ["mode default → plan"],
        [
            "tool apply_patch blocked while planning",
            "workspace changed by a planning command: notes.txt",
            "plan submitted (revision 1)",
        ],
        ["plan submitted (revision 2)"],
        ["mode plan → default (plan revision 2 approved)"],
        [],
    ]
    assert analysis.turns[3].answer.plans == ["# Second\n1. add notes\n"]
    proc = run_cli("diff", str(capture), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    kinds: list[Any] = [[e["kind"] for e in t["mode_events"]] for t in doc["turns"]]
    assert kinds[2] == ["tool_blocked", "workspace_changed", "plan_submitted"] and kinds[4] == ["mode_change"]
    assert doc["turns"][3]["answer"]["output"][0]["plan"] == "# Second\n1. add notes\n"
    text = run_cli("diff", str(capture), "--no-color")
    assert "mode plan → default (plan revision 2 approved)" in text.stdout
    assert "collaboration mode " not in text.stdout  # the mode event says it, once

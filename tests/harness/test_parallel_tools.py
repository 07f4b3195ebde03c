"""A batch of tool calls runs concurrently in Default mode and one call after another while planning.

Two real shell commands meet at a rendezvous: each leaves its own flag file and waits (bounded) for the
other's. Run concurrently both see the other; run one after another the first gives up alone. The
outputs and events stay in call order either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.events import ToolCall, ToolOutput
from tests.harness.harness_support import assert_calls_paired, make_repo, run_agent, write_script


def _waiter(me: str, other: str) -> dict[str, Any]:
    # Bounded: at most 4 s of polling, then "alone"; the yield time outlasts it, so the call returns
    # with the command's exit, never as a running session.
    cmd = (
        f"touch {me}.flag; for i in $(seq 40); do [ -e {other}.flag ] && echo {me}-met && exit 0; "
        f"sleep 0.1; done; echo {me}-alone"
    )
    return {"function_call": {"name": "exec_command", "arguments": {"cmd": cmd, "yield_time_ms": 10000}}}


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _outputs(body: dict[str, Any]) -> list[str]:
    return [str(i["output"]) for i in body["input"] if i["type"] == "function_call_output"]


def test_default_mode_runs_a_batch_at_once_with_outputs_in_call_order(repo: Path, tmp_path: Path) -> None:
    batch = {"output": [_waiter("a", "b"), _waiter("b", "a")]}
    script = write_script(tmp_path / "s.json", [batch, {"text": "done"}])
    run = run_agent(repo, script, ["meet"], tmp_path / "cap.jsonl")
    body = run.bodies()[1]
    assert body["parallel_tool_calls"] is True
    assert_calls_paired(body["input"])
    first, second = _outputs(body)
    assert "a-met" in first and "b-met" in second  # each saw the other's flag: they ran at once
    calls = [e.call_id for e in run.events if isinstance(e, ToolCall)]
    shown = [e.call_id for e in run.events if isinstance(e, ToolOutput)]
    sent = [i["call_id"] for i in body["input"] if i["type"] == "function_call"]
    assert calls == shown == sent


def test_plan_mode_runs_a_batch_one_call_after_another(repo: Path, tmp_path: Path) -> None:
    batch = {"output": [_waiter("a", "b"), _waiter("b", "a")]}
    script = write_script(tmp_path / "s.json", [batch, {"text": "done"}])
    run = run_agent(repo, script, ["meet"], tmp_path / "cap.jsonl", plan=True)
    first, second = _outputs(run.bodies()[1])
    assert "a-alone" in first  # b had not started while a waited
    assert "b-met" in second

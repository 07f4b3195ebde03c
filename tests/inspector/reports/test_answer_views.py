"""The answer belongs to its turn, in every view: `diff --turn`, `show`, the JSON and markdown
reports, the TUI turn view and timeline, each reading the analysis's one `Answer` of the turn.

On a real capture: the harness through the recording proxy, answered by a script cassette, with a
tool call on the first turn and a last answer that no later request carries as history.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.tui.viewmodel.lines import short_tokens
from ctxscope.inspector.tui.viewmodel.timeline import timeline_row
from ctxscope.inspector.tui.viewmodel.turn import turn_view
from tests.cli_support import run_cli
from tests.harness.harness_support import make_repo, run_agent, write_script

LAST = "All done: greet() now says hello to the whole team."


@pytest.fixture
def capture(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    call: dict[str, Any] = {
        "output": [{"function_call": {"name": "exec_command", "arguments": {"cmd": "ls pkg"}}}]
    }
    script = write_script(tmp_path / "s.json", [call, {"text": "I listed pkg."}, {"text": LAST}])
    path = tmp_path / "cap.jsonl"
    run_agent(repo, script, ["look at pkg", "now finish"], path)
    return path


def test_the_last_turns_answer_is_in_every_view(capture: Path) -> None:
    analysis = analyse_recording(capture)
    last = len(analysis.turns)
    assert last == 3 and analysis.turns[-1].answer.text == LAST
    # the first turn's answer is its tool call, on that turn (the next request only repeats it)
    first = analysis.turns[0].answer
    assert [(c.name, c.arguments_json()) for c in first.tool_calls] == [("exec_command", {"cmd": "ls pkg"})]

    diff = run_cli("diff", str(capture), "--turn", str(last), "--no-color", env={"COLUMNS": "200"})
    assert diff.returncode == 0, diff.stderr
    assert f"│ {LAST}" in diff.stdout.split("  answer: completed")[1]
    show = run_cli("show", str(capture), "--turn", str(last), "--no-color", env={"COLUMNS": "200"})
    assert f"│ {LAST}" in show.stdout.split("world state:")[1]
    call = run_cli("show", str(capture), "--turn", "1", "--no-color", env={"COLUMNS": "200"}).stdout
    assert 'function_call exec_command {"cmd": "ls pkg"}' in call

    doc = json.loads(run_cli("diff", str(capture), "--format", "json").stdout)
    answers = [t["answer"] for t in doc["turns"]]
    assert answers[-1]["status"] == "completed" and answers[-1]["output"][-1]["text"] == LAST
    assert answers[0]["output"][0] == {
        "type": "function_call",
        "kind": "function_call exec_command",
        "name": "exec_command",
        "arguments": '{"cmd": "ls pkg"}',
    }
    assert answers[-1]["usage"]["output_tokens"] is not None
    markdown = run_cli("diff", str(capture), "--turn", str(last), "--format", "markdown").stdout
    assert f"  {LAST}" in markdown.split("**Answer:** completed")[1]

    result = analysis.turns[-1]
    view = [line.text for line in turn_view(result, analysis.turns[-2], reason="t", expanded=set()).lines]
    assert view[view.index(next(v for v in view if v.startswith("answer"))) :][-1] == f"    {LAST}"
    row = timeline_row(result, world_changed=False).line(width=160).text
    figure = short_tokens(result.tokens.shown[0])
    assert f'→ message "{LAST}"' in row and row.index("→ message") < row.index(figure)  # before the figures
    first = timeline_row(analysis.turns[0], world_changed=False).line(width=160).text
    assert '→ function_call exec_command {"cmd": "ls pkg"}' in first


def test_each_way_a_request_can_end_is_one_status_with_its_error(edge: Any) -> None:
    path = edge("failed_stream")
    doc = json.loads(run_cli("diff", str(path), "--format", "json").stdout)
    said = [(t["answer"]["status"], t["answer"]["error"]) for t in doc["turns"]]
    assert said == [
        ("failed", "context_length_exceeded: too long"),
        ("cut", "the stream ended without a terminal event"),
        ("cut", "upstream_reset: connection reset by peer"),
        ("error", '{"error": {"code": "rate_limit_exceeded", "message": "slow down"}}'),
        ("completed", None),
    ]
    text = run_cli("diff", str(path), "--turn", "3", "--no-color").stdout
    assert "answer: cut" in text and "error: upstream_reset: connection reset by peer" in text

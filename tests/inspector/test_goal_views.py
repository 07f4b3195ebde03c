"""A real harness goal run (`-p "/goal …"`, a scripted model that works five turns, then calls
`update_goal complete`): every view names the goal turns, and a run of continuations folds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.tui.viewmodel.session import Inspector
from tests.cli_support import run_cli
from tests.harness.harness_support import make_repo, write_config, write_script
from tests.inspector.one_account import assert_one_account

TIMEOUT_S = 120


def _goal_run(tmp_path: Path, home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(home, tmp_path / "skills")
    steps: list[dict[str, object]] = [{"text": f"step {n}"} for n in range(1, 6)]
    steps.append(
        {"output": [{"function_call": {"name": "update_goal", "arguments": {"status": "complete"}}}]}
    )
    steps.append({"text": "all done"})
    script = write_script(tmp_path / "goal.json", steps)
    capture = tmp_path / "goal.jsonl"
    command = [sys.executable, "-m", "ctxscope.cli", "agent", "-p", "/goal write a haiku"]
    proc = subprocess.run(
        [*command, "--provider", "script", "--script", str(script), "--capture", str(capture)],
        cwd=repo,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return capture


def test_goal_turns_are_named_in_diff_json_and_the_tui(tmp_path: Path, ctxscope_home: Path) -> None:
    capture = _goal_run(tmp_path, ctxscope_home)
    assert_one_account(capture)
    doc = json.loads(run_cli("diff", str(capture), "--format", "json").stdout)
    events = [[(e["kind"], e["number"]) for e in t["goal_events"]] for t in doc["turns"]]
    assert events[0] == [("set", None), ("continuation", 1)]
    assert events[1:5] == [[("continuation", n)] for n in range(2, 6)]
    # the model's update_goal is told on the turn whose answer made the call, not on the next one
    assert events[5] == [("continuation", 6), ("completed", None)]
    assert ("completed", None) not in events[-1]

    text = run_cli("diff", str(capture)).stdout
    assert "goal set: write a haiku" in text
    assert "turns 2–5  goal continuations #2–#5" in text  # the run folds into one line
    assert "turn 3 " not in text and "goal completed" in text.split("turn 6")[1].split("turn 7")[0]

    inspector = Inspector(analyse_recording(capture))
    rows = [line.text for line in inspector.timeline(200)]  # wide enough for every event word
    assert "goal continuation #3" in rows[2] and "goal completed" in rows[5]
    # A goal turn is an event, not a change of the world: no `w` flag on 35 rows in a row.
    assert inspector.history.change_turns == []
    pane = [line.text for line in inspector.world(4)]
    assert any(line.startswith("goal log") and "continuation #4" in line for line in pane), pane
    assert not any("goal_events" in line for line in pane)

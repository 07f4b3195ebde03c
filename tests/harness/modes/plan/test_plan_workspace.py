"""A planning shell command that changes the workspace is reported to the model and to the user."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.events import Notice
from harness.modes.plan.texts import recognise_workspace_note
from harness.modes.plan.workspace import changed_paths, take_snapshot
from tests.harness.harness_support import make_repo, run_agent, write_script


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _exec(cmd: str) -> dict[str, object]:
    return {"function_call": {"name": "exec_command", "arguments": {"cmd": cmd, "login": False}}}


def test_a_planning_command_that_writes_a_file_is_reported(repo: Path, tmp_path: Path) -> None:
    batch = {"output": [_exec("cat README.md"), _exec("echo draft > notes.txt"), _exec("ls")]}
    script = write_script(tmp_path / "s.json", [batch, {"text": "noted"}])
    run = run_agent(repo, script, ["plan"], tmp_path / "cap.jsonl", plan=True)
    outputs = [i["output"] for i in run.bodies()[1]["input"] if i["type"] == "function_call_output"]
    assert [recognise_workspace_note(o) for o in outputs] == [None, ["notes.txt"], None]
    assert (repo / "notes.txt").read_text() == "draft\n"  # reported, not undone
    notices = [e.message for e in run.events if isinstance(e, Notice)]
    assert notices == ["workspace changed by a planning command: notes.txt"]


def test_not_watched_outside_plan_mode(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"output": [_exec("echo x > notes.txt")]}, {"text": "ok"}])
    run = run_agent(repo, script, ["do it"], tmp_path / "cap.jsonl")
    (output,) = [i["output"] for i in run.bodies()[1]["input"] if i["type"] == "function_call_output"]
    assert recognise_workspace_note(output) is None


def test_snapshot_skips_caches_and_falls_back_to_git_status(tmp_path: Path) -> None:
    root = tmp_path / "w"
    (root / "__pycache__").mkdir(parents=True)
    (root / "a.txt").write_text("a")
    before = take_snapshot(root)
    (root / "__pycache__" / "x.pyc").write_text("cache")
    (root / "a.txt").write_text("changed")
    (root / "b.txt").write_text("new")
    assert changed_paths(before, take_snapshot(root)) == ["a.txt", "b.txt"]
    # Over the limit outside a repository: the check says it was skipped.
    big = take_snapshot(root, limit=1)
    assert big.files is None and big.skipped and changed_paths(big, big) is None
    # Over the limit in a repository: git status before and after.
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    before = take_snapshot(root, limit=1)
    (root / "c.txt").write_text("new")
    after = take_snapshot(root, limit=1)
    assert before.git is not None and changed_paths(before, after) == ["c.txt"]

"""A planning shell command that changes the workspace (files, git refs, files next to it or in the
temp dir) is reported to the model and to the user."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from ctxscope.harness.events import Notice
from ctxscope.harness.modes.plan.texts import recognise_workspace_note, workspace_note
from ctxscope.harness.modes.plan.workspace import changed_outside, changed_paths, take_snapshot
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
    # (Files in /tmp that another program writes meanwhile get a notice of their own.)
    notices = [e.message for e in run.events if isinstance(e, Notice) and "outside" not in e.message]
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


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_new_commits_tags_and_branches_are_reported(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("a")
    _git(root, "add", "a.txt")
    _git(root, "commit", "-qm", "one")
    before = take_snapshot(root)
    _git(root, "commit", "-q", "--allow-empty", "-m", "two")  # changes no file of the workspace
    _git(root, "tag", "v1")
    _git(root, "branch", "side")
    after = take_snapshot(root)
    old, new = before.refs["refs/heads/main"][:7], after.refs["refs/heads/main"][:7]
    assert changed_paths(before, after) == [
        f"git branch main moved {old}..{new}",  # HEAD moved with it: said once
        "git branch side created",
        "git tag v1 created",
    ]
    _git(root, "tag", "-d", "v1")
    _git(root, "checkout", "-q", "--detach", "HEAD~1")
    assert changed_paths(after, take_snapshot(root)) == [f"git HEAD moved {new}..{old}", "git tag v1 deleted"]
    # The note the model gets names them, and the inspector reads them back.
    note = workspace_note(changed_paths(before, after) or [])
    assert recognise_workspace_note("output\n\n" + note) == changed_paths(before, after)


def test_writes_next_to_the_workspace_and_in_the_temp_dir_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "w"
    root.mkdir()
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    (tmp_path / "kept.txt").write_text("same")
    before = take_snapshot(root)
    (tmp_path / "victim.txt").write_text("written by ../victim.txt")
    (temp / "scratch.txt").write_text("written in $TMPDIR")
    (tmp_path / "made-a-dir").mkdir()  # directories are not reported, only files
    after = take_snapshot(root)
    assert changed_paths(before, after) == []  # the workspace itself is unchanged
    changed = changed_outside(before, after)
    assert str(tmp_path / "victim.txt") in changed and str(temp / "scratch.txt") in changed
    assert str(tmp_path / "kept.txt") not in changed and str(tmp_path / "made-a-dir") not in changed
    assert str(tmp_path / "w") not in changed

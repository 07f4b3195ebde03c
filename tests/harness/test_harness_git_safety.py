"""No program a repository configures runs through git the harness runs itself: the turn metadata's
`git status` and plan mode's workspace snapshot go through `git_guard.run_git`, the path of the
model's known-safe git. Each case plants a program that would leave a marker file, then runs a real
agent (script model, real proxy, capture on) in `read-only` with a plain prompt and no tool call."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxscope.harness.modes.plan.workspace import take_snapshot
from ctxscope.harness.tools.git_guard import GIT_OPTIONS, harden_git_command, hardened_git_argv
from ctxscope.harness.turn_metadata import workspace_status
from tests.harness.harness_support import run_agent, write_config, write_script


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def committed_repo(root: Path) -> Path:
    """A repository with one committed file, a.txt."""
    root.mkdir(parents=True)
    git(root, "init", "-q")
    (root / "a.txt").write_text("one\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-qm", "init")
    return root


def planted(tmp_path: Path) -> tuple[str, Path]:
    """A program outside the workspace that leaves a marker when it runs (and passes stdin through)."""
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    marker = outside / "ran"
    script = outside / "prog.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\ncat\n")
    script.chmod(0o755)
    return str(script), marker


def plant_fsmonitor(repo: Path, program: str, tmp_path: Path) -> None:
    git(repo, "config", "core.fsmonitor", program)


def plant_filter(repo: Path, program: str, tmp_path: Path) -> None:
    git(repo, "config", "filter.x.clean", program)
    (repo / ".gitattributes").write_text("*.txt filter=x\n")
    # A tracked file whose stat no longer matches the index: `git status` re-reads it through the filter.
    os.utime(repo / "a.txt", (1, 1))


def plant_include(repo: Path, program: str, tmp_path: Path) -> None:
    (repo / "included.cfg").write_text(f"[core]\n\tfsmonitor = {program}\n")
    git(repo, "config", "include.path", str(repo / "included.cfg"))


def plant_include_if(repo: Path, program: str, tmp_path: Path) -> None:
    (repo / "included.cfg").write_text(f"[core]\n\tfsmonitor = {program}\n")
    git(repo, "config", f"includeIf.gitdir:{repo}/.git.path", str(repo / "included.cfg"))


def plant_git_dir(repo: Path, program: str, tmp_path: Path) -> None:
    # The agent's environment points git at another repository whose config runs the program.
    other = committed_repo(tmp_path / "other")
    git(other, "config", "core.fsmonitor", program)
    os.environ["GIT_DIR"] = str(other / ".git")
    os.environ["GIT_WORK_TREE"] = str(other)


def plant_config_env(repo: Path, program: str, tmp_path: Path) -> None:
    os.environ.update(
        {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": program}
    )
    os.environ["GIT_CONFIG_GLOBAL"] = str(repo / "included.cfg")
    (repo / "included.cfg").write_text(f"[core]\n\tfsmonitor = {program}\n[diff]\n\texternal = {program}\n")


PLANTS: dict[str, Callable[[Path, str, Path], None]] = {
    "fsmonitor": plant_fsmonitor,
    "filter-clean": plant_filter,
    "include-path": plant_include,
    "include-if": plant_include_if,
    "GIT_DIR": plant_git_dir,
    "GIT_CONFIG": plant_config_env,
}


@pytest.fixture
def clean_git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a case puts in os.environ is undone after it (monkeypatch restores these names)."""
    for name in (
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_KEY_0",
        "GIT_CONFIG_VALUE_0",
        "GIT_CONFIG_GLOBAL",
    ):
        monkeypatch.setenv(name, "")  # records the name, so a value a case sets is removed after it
        monkeypatch.delenv(name)


@pytest.mark.parametrize("plant", list(PLANTS))
def test_plain_prompt_in_read_only_runs_no_planted_program(
    plant: str, tmp_path: Path, ctxscope_home: Path, clean_git_env: None
) -> None:
    repo = committed_repo(tmp_path / "repo")
    write_config(ctxscope_home, tmp_path / "skills")
    program, marker = planted(tmp_path)
    PLANTS[plant](repo, program, tmp_path)
    run = run_agent(
        repo,
        write_script(tmp_path / "s.json", [{"text": "hello"}]),
        ["hi"],
        tmp_path / "c.jsonl",
        sandbox="read-only",
    )
    (body,) = run.bodies()
    assert not marker.exists(), marker.read_text()
    workspaces = json.loads(body["client_metadata"]["x-codex-turn-metadata"])["workspaces"]
    # The workspace is still reported (rev-parse runs no program); a hostile config costs `has_changes`.
    assert list(workspaces) == [str(repo)]
    assert "latest_git_commit_hash" in workspaces[str(repo)]
    if plant in ("GIT_DIR", "GIT_CONFIG"):  # the environment is ignored, the repository itself is fine
        assert "has_changes" in workspaces[str(repo)]
    else:
        assert "has_changes" not in workspaces[str(repo)]


@pytest.mark.parametrize("plant", list(PLANTS))
def test_plan_snapshot_git_fallback_runs_no_planted_program(
    plant: str, tmp_path: Path, clean_git_env: None
) -> None:
    repo = committed_repo(tmp_path / "repo")
    program, marker = planted(tmp_path)
    PLANTS[plant](repo, program, tmp_path)
    snapshot = take_snapshot(repo, limit=0)  # too many files to walk: `git status` decides
    assert not marker.exists(), marker.read_text()
    if plant in ("GIT_DIR", "GIT_CONFIG"):
        assert snapshot.git is not None
    else:
        assert snapshot.git is None and snapshot.skipped is not None
        assert "the repository's git config makes git run programs" in snapshot.skipped


def test_a_submodules_filter_does_not_run(tmp_path: Path, clean_git_env: None) -> None:
    # A submodule's config is not judged, so hardened git does not descend into submodules.
    program, marker = planted(tmp_path)
    sub = committed_repo(tmp_path / "sub")
    top = committed_repo(tmp_path / "top")
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    git(top, "commit", "-qm", "sub")
    plant_filter(top / "sub", program, tmp_path)
    assert workspace_status(top)[str(top)]["has_changes"] is False
    assert not marker.exists()


def test_the_model_shell_function_and_the_harness_run_the_same_argv(tmp_path: Path) -> None:
    # `sh -x` shows the command the function ran: the argv of `hardened_git_argv`.
    for args in (["status", "--short"], ["diff", "HEAD"], ["log", "-1"]):
        script = harden_git_command("git " + " ".join(args))
        done = subprocess.run(
            ["sh", "-xc", script.replace("command git", "command echo git")],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.split() == hardened_git_argv(args)
    assert hardened_git_argv(["status"])[1 : len(GIT_OPTIONS) + 1] == list(GIT_OPTIONS)

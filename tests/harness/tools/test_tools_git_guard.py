"""Read-only git runs no program a repository configures: with such config it needs approval, and
otherwise it runs with pagers, external diffs, textconv, fsmonitor and hooks switched off."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tools_support import Approver, call, make_router

from ctxscope.harness.tools import is_known_safe_command


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with one commit and a modified tracked file (so `git diff` has output)."""
    root = tmp_path / "ws"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.txt").write_text("one\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-qm", "init")
    (root / "a.txt").write_text("two\n")
    return root


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """Where a planted program leaves its mark: outside the workspace."""
    return tmp_path / "outside" / "ran"


def planted_program(tmp_path: Path, marker: Path) -> str:
    """An executable that writes `marker` (what a hostile repository would configure)."""
    marker.parent.mkdir(exist_ok=True)
    script = tmp_path / "outside" / "prog.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\ncat\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize(
    ("key", "cmd", "attributes"),
    [
        ("diff.external", "git diff", None),
        ("core.fsmonitor", "git status", None),
        ("diff.x.textconv", "git log -p", "*.txt diff=x\n"),
        ("filter.x.clean", "git status", "*.txt filter=x\n"),
        ("core.pager", "git show", None),
    ],
)
def test_repository_config_that_runs_programs_needs_approval(
    repo: Path, tmp_path: Path, marker: Path, key: str, cmd: str, attributes: str | None
) -> None:
    git(repo, "config", key, planted_program(tmp_path, marker))
    if attributes:
        (repo / ".gitattributes").write_text(attributes)
    approver = Approver(False)
    out = call(make_router(repo, sandbox_mode="read-only", approver=approver), "exec_command", {"cmd": cmd})
    assert out.startswith("exec_command was not run: sandbox `read-only`: the repository's git config")
    assert key in out and len(approver.asked) == 1
    assert not marker.exists()
    headless = call(make_router(repo, approval_policy="untrusted"), "exec_command", {"cmd": cmd})
    assert "approval policy `untrusted`: the repository's git config" in headless
    assert not marker.exists()


def test_read_only_git_runs_hardened_and_says_so(repo: Path, tmp_path: Path, marker: Path) -> None:
    # Config outside the repository is not refused, but the hardened command line still ignores it.
    program = planted_program(tmp_path, marker)
    # The user's global config ($HOME/.gitconfig; GIT_CONFIG_GLOBAL is among the GIT_* dropped).
    global_config = tmp_path / "outside" / ".gitconfig"
    global_config.write_text(
        f"[core]\n\tfsmonitor = {program}\n\tpager = {program}\n[diff]\n\texternal = {program}\n"
    )
    approver = Approver(True)
    router = make_router(
        repo, sandbox_mode="read-only", approver=approver, env={"HOME": str(global_config.parent)}
    )
    out = call(router, "exec_command", {"cmd": "git status --short && git diff", "yield_time_ms": 60_000})
    assert "Process exited with code 0" in out, out
    assert "Git: read-only git ran as `git --no-pager -c core.fsmonitor=false" in out
    assert "--no-ext-diff --no-textconv" in out
    assert " M a.txt" in out and "-one\n+two" in out
    assert approver.asked == [] and not marker.exists()


def test_approved_git_runs_as_written(repo: Path, tmp_path: Path, marker: Path) -> None:
    git(repo, "config", "diff.external", planted_program(tmp_path, marker))
    router = make_router(repo, sandbox_mode="read-only", approver=Approver(True))
    out = call(router, "exec_command", {"cmd": "git diff", "yield_time_ms": 60_000})
    assert "Approval: approved by the user" in out and "Git:" not in out
    assert marker.exists()  # the user said yes to the repository's program


def test_fsmonitor_false_and_plain_config_run_without_approval(repo: Path) -> None:
    git(repo, "config", "core.fsmonitor", "false")
    approver = Approver(False)
    out = call(
        make_router(repo, sandbox_mode="read-only", approver=approver), "exec_command", {"cmd": "git status"}
    )
    assert out.startswith("Chunk ID: ") and "Git: read-only git ran as" in out and approver.asked == []


def test_textconv_flag_is_not_known_safe() -> None:
    assert not is_known_safe_command("git log -p --textconv")
    assert is_known_safe_command("git log -p --no-textconv")


def test_log_and_show_ignore_textconv_from_outside_config(repo: Path, tmp_path: Path, marker: Path) -> None:
    program = planted_program(tmp_path, marker)
    attributes = tmp_path / "outside" / "attributes"
    attributes.write_text("*.txt diff=x\n")
    global_config = tmp_path / "outside" / ".gitconfig"
    global_config.write_text(f'[core]\n\tattributesFile = {attributes}\n[diff "x"]\n\ttextconv = {program}\n')
    router = make_router(repo, sandbox_mode="read-only", env={"HOME": str(global_config.parent)})
    out = call(router, "exec_command", {"cmd": "git log -p -1 && git show HEAD", "yield_time_ms": 60_000})
    assert "Process exited with code 0" in out and "+one" in out, out
    assert not marker.exists()


@pytest.mark.parametrize(
    "steer",
    [
        {"GIT_DIR": "{other}/.git", "GIT_WORK_TREE": "{other}"},
        {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "diff.external", "GIT_CONFIG_VALUE_0": "{program}"},
        {"GIT_EXTERNAL_DIFF": "{program}"},
    ],
    ids=["GIT_DIR", "GIT_CONFIG_COUNT", "GIT_EXTERNAL_DIFF"],
)
def test_environment_cannot_steer_read_only_git(
    repo: Path, tmp_path: Path, marker: Path, steer: dict[str, str]
) -> None:
    program = planted_program(tmp_path, marker)
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    git(other, "config", "core.fsmonitor", program)
    env = {k: v.format(other=other, program=program) for k, v in steer.items()}
    router = make_router(repo, sandbox_mode="read-only", approver=Approver(False), env=env)
    out = call(router, "exec_command", {"cmd": "git status --short && git diff", "yield_time_ms": 60_000})
    assert "Process exited with code 0" in out, out
    assert " M a.txt" in out and "-one\n+two" in out  # the workspace's repository, diffed by git itself
    assert not marker.exists()

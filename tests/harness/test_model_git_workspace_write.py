"""In workspace-write the model's own git runs none of the repository's programs, and no `.git`
beneath a writable root can be written, nested ones included.

Each case plants a program that would leave a marker file in a writable place (the sandbox would let
it), then a real agent (script model, real proxy) in workspace-write runs the model's git command
through exec_command in the real OS sandbox. A control runs the same git by its full path (which
bypasses ctxscope's `git` on PATH) and the marker appears: the plant is live."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxscope.harness.sandbox import capabilities
from tests.harness.harness_support import run_agent, write_script

CAPS = capabilities()
needs_sandbox = pytest.mark.skipif(not (CAPS.landlock and CAPS.namespaces), reason="no Landlock or namespaces")
TURNED_OFF = "git: ctxscope turned off the programs this repository's git config sets"


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "protocol.file.allow=always", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def committed_repo(root: Path) -> Path:
    """A repository with one committed file, a.txt, changed since (so `git diff` has something)."""
    root.mkdir(parents=True)
    git(root, "init", "-q")
    (root / "a.txt").write_text("one\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-qm", "init")
    (root / "a.txt").write_text("two\n")
    return root


def planted(tmp_path: Path) -> tuple[str, Path]:
    """A program that leaves a marker when it runs (and passes stdin through, as a filter would)."""
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    marker = marks / "ran"
    script = marks / "prog.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\ncat\n")
    script.chmod(0o755)
    return str(script), marker


def _attributes(repo: Path, line: str) -> None:
    (repo / ".gitattributes").write_text(line)
    os.utime(repo / "a.txt", (1, 1))  # stat no longer matches the index: git re-reads it


def fsmonitor(repo: Path, program: str, tmp: Path) -> str:
    git(repo, "config", "core.fsmonitor", program)
    return "git status"


def filter_process(repo: Path, program: str, tmp: Path) -> str:
    git(repo, "config", "filter.x.process", program)
    _attributes(repo, "*.txt filter=x\n")
    return "git status"


def filter_clean(repo: Path, program: str, tmp: Path) -> str:
    git(repo, "config", "filter.x.clean", program)
    _attributes(repo, "*.txt filter=x\n")
    return "git diff"


def include_if_external_diff(repo: Path, program: str, tmp: Path) -> str:
    (tmp / "included.cfg").write_text(f"[diff]\n\texternal = {program}\n")
    git(repo, "config", f"includeIf.gitdir:{repo}/.git.path", str(tmp / "included.cfg"))
    return "git diff"


def explicit_ext_diff(repo: Path, program: str, tmp: Path) -> str:
    git(repo, "config", "diff.external", program)
    return "git diff --ext-diff; git -p log -1 --ext-diff -p; true"


def textconv(repo: Path, program: str, tmp: Path) -> str:
    git(repo, "config", "diff.x.textconv", program)
    _attributes(repo, "*.txt diff=x\n")
    return "git diff && git log -p -1"


def diff_driver_command(repo: Path, program: str, tmp: Path) -> str:
    git(repo, "config", "diff.x.command", program)
    _attributes(repo, "*.txt diff=x\n")
    return "git diff"


def submodule_fsmonitor(repo: Path, program: str, tmp: Path) -> str:
    sub = committed_repo(tmp / "subsource")
    git(repo, "submodule", "add", "-q", str(sub), "sub")
    git(repo / "sub", "config", "core.fsmonitor", program)
    (repo / "sub" / "a.txt").write_text("changed\n")
    return "git status"


def submodule_filter(repo: Path, program: str, tmp: Path) -> str:
    sub = committed_repo(tmp / "subsource")
    git(repo, "submodule", "add", "-q", str(sub), "sub")
    git(repo / "sub", "config", "filter.x.clean", program)
    _attributes(repo / "sub", "*.txt filter=x\n")
    return "git status && git diff"


def env_config_fsmonitor(repo: Path, program: str, tmp: Path) -> str:
    os.environ.update({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": program})
    return "git status"


def env_external_diff(repo: Path, program: str, tmp: Path) -> str:
    os.environ["GIT_EXTERNAL_DIFF"] = program
    return "git diff"


def gitfile_elsewhere(repo: Path, program: str, tmp: Path) -> str:
    # The workspace's `.git` is a file pointing at a repository elsewhere, whose config has the program.
    other = tmp / "elsewhere.git"
    shutil.move(str(repo / ".git"), other)
    (repo / ".git").write_text(f"gitdir: {other}\n")
    subprocess.run(["git", "config", "--file", str(other / "config"), "core.fsmonitor", program], check=True)
    return "git status"


def script_runs_git(repo: Path, program: str, tmp: Path) -> str:
    # Not the model's own `git` word: a script it runs calls git (found on PATH).
    git(repo, "config", "core.fsmonitor", program)
    (repo / "check.sh").write_text("#!/bin/sh\ncd \"$(dirname \"$0\")\" && git status --short\n")
    return "sh check.sh && python3 -c \"import subprocess; subprocess.run(['git', 'status'])\""


PLANTS: dict[str, Callable[[Path, str, Path], str]] = {
    "fsmonitor": fsmonitor,
    "filter-process": filter_process,
    "filter-clean": filter_clean,
    "include-if-diff-external": include_if_external_diff,
    "explicit-ext-diff": explicit_ext_diff,
    "textconv": textconv,
    "diff-driver-command": diff_driver_command,
    "submodule-fsmonitor": submodule_fsmonitor,
    "submodule-filter": submodule_filter,
    "GIT_CONFIG_env": env_config_fsmonitor,
    "GIT_EXTERNAL_DIFF_env": env_external_diff,
    "gitfile-elsewhere": gitfile_elsewhere,
    "script-runs-git": script_runs_git,
}
FROM_CONFIG = {"fsmonitor", "filter-process", "filter-clean", "include-if-diff-external", "textconv"}
FROM_CONFIG |= {"diff-driver-command", "gitfile-elsewhere", "script-runs-git", "submodule-filter", "explicit-ext-diff"}


@pytest.fixture
def clean_git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a case puts in os.environ is undone after it."""
    for name in ("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_EXTERNAL_DIFF"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


def _model_runs(repo: Path, tmp_path: Path, cmd: str, *, login: bool = False) -> str:
    call = {"name": "exec_command", "arguments": {"cmd": cmd, "login": login, "yield_time_ms": 60_000}}
    script = write_script(tmp_path / "s.json", [{"output": [{"function_call": call}]}, {"text": "ok"}])
    run = run_agent(repo, script, ["look at the repo"], tmp_path / "cap.jsonl")
    (output,) = [i["output"] for i in run.bodies()[1]["input"] if i["type"] == "function_call_output"]
    return str(output)


@needs_sandbox
@pytest.mark.parametrize("plant", list(PLANTS))
def test_the_models_git_runs_no_planted_program(
    plant: str, tmp_path: Path, ctxscope_home: Path, clean_git_env: None
) -> None:
    repo = committed_repo(tmp_path / "repo")
    program, marker = planted(tmp_path)
    cmd = PLANTS[plant](repo, program, tmp_path)
    output = _model_runs(repo, tmp_path, cmd)
    assert not marker.exists(), (marker.read_text(), output)
    assert "Process exited with code" in output, output
    if plant in FROM_CONFIG:
        assert TURNED_OFF in output, output


@needs_sandbox
def test_a_login_shell_whose_profile_sets_path_still_gets_the_guarded_git(
    tmp_path: Path, ctxscope_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = committed_repo(tmp_path / "repo")
    program, marker = planted(tmp_path)
    fsmonitor(repo, program, tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bash_profile").write_text("PATH=/usr/local/bin:/usr/bin:/bin; export PATH\n")  # as /etc/profile does
    monkeypatch.setenv("HOME", str(home))
    output = _model_runs(repo, tmp_path, "git status", login=True)
    assert not marker.exists(), output
    assert TURNED_OFF in output, output


@needs_sandbox
def test_the_control_git_by_full_path_runs_the_plant(tmp_path: Path, ctxscope_home: Path) -> None:
    repo = committed_repo(tmp_path / "repo")
    program, marker = planted(tmp_path)
    fsmonitor(repo, program, tmp_path)
    output = _model_runs(repo, tmp_path, f"{shutil.which('git')} status")
    assert marker.exists(), output  # the plant is live and the sandbox lets it write: only the guard stops it


@needs_sandbox
def test_git_lfs_stays_on_and_another_filter_is_named(tmp_path: Path, ctxscope_home: Path) -> None:
    repo = committed_repo(tmp_path / "repo")
    program, marker = planted(tmp_path)
    git(repo, "config", "filter.lfs.process", "git-lfs filter-process")
    git(repo, "config", "filter.lfs.required", "true")
    git(repo, "config", "filter.x.clean", program)
    _attributes(repo, "*.txt filter=x\n*.bin filter=lfs\n")
    output = _model_runs(repo, tmp_path, "git status --short")
    assert f"{TURNED_OFF} (filter.x.clean)" in output, output
    assert not marker.exists()


@needs_sandbox
def test_no_git_environment_variable_reaches_a_model_command(
    tmp_path: Path, ctxscope_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = committed_repo(tmp_path / "repo")
    for name, value in {"GIT_DIR": "/nonexistent", "GIT_TRACE": "1", "GIT_ASKPASS": "/bin/false"}.items():
        monkeypatch.setenv(name, value)
    output = _model_runs(repo, tmp_path, "env | grep '^GIT_' | cut -d= -f1; git rev-parse --show-toplevel")
    names = output.partition("\nOutput:\n")[2].splitlines()
    assert names == ["GIT_PAGER", str(repo)], output  # only the harness's own `GIT_PAGER=cat`; git finds the repo


@needs_sandbox
def test_every_git_beneath_a_writable_root_is_read_only(tmp_path: Path, ctxscope_home: Path) -> None:
    repo = committed_repo(tmp_path / "repo")
    nested = committed_repo(repo / "vendor" / "lib")  # a nested repository with its own .git
    (nested / ".git" / "hooks").mkdir(exist_ok=True)
    deep = committed_repo(repo / "a" / "b" / "c" / "deep")
    # a `.git` file whose gitdir lies in the workspace too (a worktree or a moved submodule's)
    moved = committed_repo(repo / "moved")
    shutil.move(str(moved / ".git"), repo / "gitdirs-moved")
    (moved / ".git").write_text(f"gitdir: {repo / 'gitdirs-moved'}\n")
    targets = [
        repo / ".git" / "hooks" / "post-checkout",
        nested / ".git" / "hooks" / "post-checkout",
        nested / ".git" / "config",
        deep / ".git" / "hooks" / "pre-commit",
        moved / ".git",
        repo / "gitdirs-moved" / "hooks" / "post-checkout",
    ]
    writes = "; ".join(f"(echo evil >> '{t}' && echo WROTE '{t}')" for t in targets)
    output = _model_runs(repo, tmp_path, f"{writes}; echo ok > '{repo / 'plain.txt'}'; true")
    assert "WROTE" not in output, output
    assert output.count("Read-only file system") == len(targets), output
    assert (repo / "plain.txt").read_text() == "ok\n"  # the rest of the workspace is writable
    assert "evil" not in (nested / ".git" / "config").read_text()

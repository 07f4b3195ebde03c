"""Known-safe commands are judged on the arguments the shell passes: a file named like an option that
a glob brings in, any expansion the check cannot read, and any redirection make a command need
approval. The escapes run for real through exec_command in `read-only`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tools_support import Approver, call, make_router

from ctxscope.harness.tools import is_known_safe_command


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A git repository with one commit, a modified file, and files named like options."""
    root = tmp_path / "ws"
    root.mkdir()
    run = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*run, "init", "-q"], cwd=root, check=True)
    (root / "a.txt").write_text("one\n")
    subprocess.run([*run, "add", "a.txt"], cwd=root, check=True)
    subprocess.run([*run, "commit", "-qm", "init"], cwd=root, check=True)
    (root / "a.txt").write_text("two\n")
    (root / "-fprint").write_text("")
    (root / "--output=victim.txt").write_text("")
    return root


@pytest.mark.parametrize("cmd", ["find *", "git diff *", "ls *", "cat -- ./* *"])
def test_a_glob_that_brings_in_an_option_needs_approval(workspace: Path, cmd: str) -> None:
    assert not is_known_safe_command(cmd, workspace)
    approver = Approver(False)
    router = make_router(workspace, sandbox_mode="read-only", approver=approver)
    out = call(router, "exec_command", {"cmd": cmd, "yield_time_ms": 30_000})
    assert out.startswith("exec_command was not run: sandbox `read-only`"), out
    assert len(approver.asked) == 1
    # What the escapes wrote before: find's -fprint target and git's --output file.
    assert sorted(p.name for p in workspace.iterdir()) == ["--output=victim.txt", "-fprint", ".git", "a.txt"]


def test_the_same_globs_without_such_files_stay_known_safe(workspace: Path) -> None:
    (workspace / "-fprint").unlink()
    (workspace / "--output=victim.txt").unlink()
    for cmd in ("find *", "git diff *", "ls *.txt", "cat ./* | wc -l", "find . -name '*.py'"):
        assert is_known_safe_command(cmd, workspace), cmd
    out = call(make_router(workspace, sandbox_mode="read-only"), "exec_command", {"cmd": "git diff *"})
    assert "-one\n+two" in out and "Process exited with code 0" in out


def test_quoted_option_names_are_not_globbed(workspace: Path) -> None:
    # Quoted or escaped, the shell passes the pattern itself: find reads a name, not an option.
    for cmd in ("find . -name '*'", 'find . -name "-f*"', "ls \\*", "grep -r x '*'"):
        assert is_known_safe_command(cmd, workspace), cmd


@pytest.mark.parametrize(
    "cmd",
    [
        "ls 2>/dev/null",
        "ls 2>&1",
        "cat < a.txt",
        "cat <<< x",
        "ls >| out",
        "ls &> out",
        "echo $HOME",
        'echo "$HOME"',
        "echo ${HOME}",
        "echo $((1+1))",
        'echo "`rm x`"',
        "echo {a,b}",
        "echo x{1..3}",
        "* a.txt",
        "ls # a comment",
        "ls |& cat",
        "ls\\",
        'echo "unbalanced',
    ],
)
def test_expansions_and_redirections_are_not_known_safe(workspace: Path, cmd: str) -> None:
    assert not is_known_safe_command(cmd, workspace)


@pytest.mark.parametrize(
    "cmd",
    ["echo '$HOME'", "echo \\$HOME", "git show HEAD@{0}", "echo '{a,b}'", "ls ~", "grep -n 'a|b' a.txt"],
)
def test_literal_text_that_looks_like_expansion_stays_known_safe(workspace: Path, cmd: str) -> None:
    assert is_known_safe_command(cmd, workspace)

"""`ctxscope demo` end to end: a real subprocess runs the harness offline through the real proxy,
writes a real recording, and the inspector explains it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.proxy.store import read_recording


def test_demo_runs_offline_and_explains_each_change(tmp_path: Path) -> None:
    capture = tmp_path / "demo.jsonl"
    env = {**os.environ, "CTXSCOPE_HOME": str(tmp_path / "home"), "NO_COLOR": "1", "COLUMNS": "200"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ctxscope.cli",
            "demo",
            "--workdir",
            str(tmp_path / "work"),
            "--capture",
            str(capture),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    repo = tmp_path / "work" / "repo"
    assert (repo / "pkg" / "greet.py").read_text().startswith("def greet(name: str) -> str:")
    assert (repo / "pkg" / "test_greet.py").is_file()

    recording = read_recording(capture)
    assert recording.header.meta["cwd"] == str(repo)  # lets strict replay map paths to another checkout
    requests = recording.model_requests()
    assert len(requests) == 7
    assert [r.request_body["model"] for r in requests] == ["gpt-5-codex"] * 6 + ["gpt-5-mini"]
    # each request extends the previous one: append-only history
    for before, after in zip(requests, requests[1:], strict=False):
        assert (
            after.request_body["input"][: len(before.request_body["input"])] == before.request_body["input"]
        )

    out = " ".join(proc.stdout.split())
    assert "initial" in out and "selected_skill:demo-skill" in out
    assert f"paths ./… are relative to {repo}" in out
    assert "AGENTS.md replaced: . → ./pkg" in out
    assert "cwd . → ./pkg" in out
    assert "model gpt-5-codex → gpt-5-mini" in out
    assert "skill demo-skill selected" in out
    assert "model switch notice" not in out  # the notice confirms the model change; said once


def test_demo_says_where_its_temp_workspace_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from tests.cli_support import run_cli

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # mkdtemp puts the workspace here
    result = run_cli("demo", "--capture", str(tmp_path / "demo.jsonl"), env={"NO_COLOR": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    [workspace] = list(tmp_path.glob("ctxscope-demo-*"))
    assert f"demo workspace kept in {workspace.resolve()}" in result.stderr
    assert "remove it with: rm -rf" in result.stderr and (workspace / "repo" / "pkg" / "greet.py").is_file()


def test_the_demo_ends_in_the_tui_only_in_a_terminal_without_no_tui() -> None:
    from ctxscope.demo import opens_tui

    assert opens_tui(False, stdin_tty=True, stdout_tty=True)
    assert not opens_tui(True, stdin_tty=True, stdout_tty=True)  # --no-tui: the printed report
    assert not opens_tui(False, stdin_tty=False, stdout_tty=True)
    assert not opens_tui(False, stdin_tty=True, stdout_tty=False)  # piped: the report


@pytest.mark.parametrize("tour", [False, True], ids=["demo", "tour"])
def test_the_machines_shell_profile_stays_out_of_the_tool_outputs(tmp_path: Path, tour: bool) -> None:
    # A login shell sources the user's profile; on a machine with pyenv it fails inside the sandbox and
    # every tool output began with its error. Here a profile that writes to stderr (and stdout).
    user = tmp_path / "user"
    user.mkdir()
    noise = "echo PROFILE-NOISE-ERR >&2; echo PROFILE-NOISE-OUT\n"
    for name in (".profile", ".bash_profile", ".bashrc", ".bash_login"):
        (user / name).write_text(noise)
    capture = tmp_path / "run.jsonl"
    env = {**os.environ, "HOME": str(user), "CTXSCOPE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    args = ["demo", *(["--tour"] if tour else []), "--no-tui", "--workdir", str(tmp_path / "work")]
    proc = subprocess.run(
        [sys.executable, "-m", "ctxscope.cli", *args, "--capture", str(capture)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Output:" in proc.stderr  # tool outputs are shown
    assert "PROFILE-NOISE" not in proc.stdout + proc.stderr
    assert "PROFILE-NOISE" not in capture.read_text()
    # the profile does write when a login shell reads it: the test would see the noise
    shown = subprocess.run(["bash", "-lc", "true"], env=env, capture_output=True, text=True, timeout=30)
    assert "PROFILE-NOISE-ERR" in shown.stderr

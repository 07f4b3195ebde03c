"""The real Codex CLI driven by a script cassette, then replayed strictly in another checkout.

Run A: `codex exec` in a fresh temp checkout talks to `serve_script` (the offline model), with the
Recorder riding along in the same proxy, so Codex's own requests are captured. The script makes Codex
run two commands (the second writes a file). Run B: another fresh temp checkout and CODEX_HOME, with other
session, installation and turn ids, replays run A's capture with strict matching — it must match
throughout, and Codex must do the same work again.

Uses the pinned Codex CLI from the test cache (see `codex_support.py`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from proxy.recorder import Recorder
from proxy.replay import load_cassette, serve_cassette, serve_script
from proxy.store.writer import RecordingWriter
from tests.proxy.replay.codex_support import codex_binary

pytestmark = pytest.mark.slow

RUN_TIMEOUT_S = 120
WRITE = "printf 'def greet():\\n    return 1\\n' > greet.py"
SCRIPT = {
    "format": "ctxscope-script",
    "responses": [
        {"function_call": {"name": "exec_command", "arguments": {"cmd": "echo replay-check"}}},
        {"function_call": {"name": "exec_command", "arguments": {"cmd": WRITE}}},
        {"text": "Added greet.py."},
    ],
}


def _run_codex(binary: Path, root: Path, base_url: str) -> str:
    """`codex exec` in root/repo with CODEX_HOME root/home, in its own process group."""
    home, repo = root / "home", root / "repo"
    home.mkdir()
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (home / "config.toml").write_text(
        'model = "gpt-5-codex"\nmodel_provider = "local"\n'
        '[model_providers.local]\nname = "local"\n'
        f'base_url = "{base_url}/v1"\n'
        'wire_api = "responses"\nenv_key = "LOCAL_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n'
    )
    # A HOME of its own: the login shell Codex runs commands in must not source the user's profile,
    # whose output (e.g. pyenv's rehash warnings) varies from run to run.
    (root / "user").mkdir()
    env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(root / "user"), "LOCAL_KEY": "x"}
    args = [str(binary), "exec", "--skip-git-repo-check", "-s", "workspace-write", "add greet.py"]
    proc = subprocess.Popen(
        args,
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"codex exec did not finish in {RUN_TIMEOUT_S} s")
    assert proc.returncode == 0, (out + err)[-3000:]
    return out + err


def test_codex_cli_scripted_then_replayed_strictly_elsewhere(tmp_path: Path) -> None:
    binary = codex_binary()
    capture = tmp_path / "codex.jsonl"
    with tempfile.TemporaryDirectory() as first:
        writer = RecordingWriter(capture, meta={"client": "codex exec"})
        recorder = Recorder(writer)
        try:
            with serve_script(SCRIPT, extra_addons=[recorder]) as server:
                _run_codex(binary, Path(first), server.url)
                recorder.drain()
                assert server.report.served == 3
        finally:
            writer.close()
        assert (Path(first) / "repo" / "greet.py").read_text() == "def greet():\n    return 1\n"

    cassette = load_cassette(capture)
    assert len(cassette.model_entries) == 3
    with tempfile.TemporaryDirectory() as second:
        with serve_cassette(capture, match="strict") as server:
            _run_codex(binary, Path(second), server.url)
            report = server.report
        assert report.problems() == [], report.problems()
        assert report.served == 3
        assert (Path(second) / "repo" / "greet.py").exists()

"""The real Codex CLI driven by a script cassette, then replayed strictly in another checkout.

Run A: `codex exec` in a fresh temp checkout talks to `serve_script` (the offline model), with the
Recorder riding along in the same proxy, so Codex's own requests are captured. The script makes Codex
run two commands (the second writes a file). Run B: another fresh temp checkout and CODEX_HOME, with other
session, installation and turn ids, replays run A's capture with strict matching — it must match
throughout, and Codex must do the same work again.

Uses the pinned Codex CLI from the test cache (see `codex_support.py`).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from ctxscope.proxy.recorder import Recorder
from ctxscope.proxy.replay import load_cassette, serve_cassette, serve_script
from ctxscope.proxy.store.writer import RecordingWriter
from tests.proxy.replay.codex_support import codex_binary, run_codex, write_config

pytestmark = pytest.mark.slow

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
    """`codex exec` in root/repo with CODEX_HOME root/home and a HOME of its own (root/user)."""
    home, repo, user = root / "home", root / "repo", root / "user"
    repo.mkdir(parents=True)
    user.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    write_config(home, base_url)
    return run_codex(binary, home, user, repo, "-s", "workspace-write", "add greet.py")


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

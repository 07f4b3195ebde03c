"""A session file is a regular file: a FIFO, a device, or a symlink to one is a one-line error from the
real `ctxscope agent`, at once, never a hang (and nothing is sent)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.proxy.testing import FakeUpstream
from tests.harness.harness_support import make_repo, write_config

TIMEOUT_S = 60  # the bug was a hang: a bounded run fails the test instead of the suite


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills", extra="[providers.local]\n")
    return repo


def _agent(repo: Path, upstream: FakeUpstream, ref: str) -> subprocess.CompletedProcess[str]:
    common = ["--provider", "local", "--base-url", f"{upstream.url}/v1", "--no-capture", "--cwd", str(repo)]
    return subprocess.run(
        [sys.executable, "-m", "ctxscope.cli", "agent", "--session", ref, "-p", "hi", *common],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={**os.environ, "LOCAL_API_KEY": "x"},
        stdin=subprocess.DEVNULL,
    )


def _sessions(home: Path) -> Path:
    folder = home / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("how", ["fifo-path", "fifo-id", "zero-link-path", "zero-link-id", "dir-link"])
def test_a_session_file_that_is_not_a_regular_file_is_one_line(
    repo: Path, upstream: FakeUpstream, ctxscope_home: Path, tmp_path: Path, how: str
) -> None:
    sid = "0badf11e-0000-4000-8000-000000000000"
    folder = _sessions(ctxscope_home) if how.endswith("-id") else tmp_path
    path = folder / f"{sid}.jsonl"
    if how.startswith("fifo"):
        os.mkfifo(path)
        kind = "is a FIFO, not a regular file"
    elif how.startswith("zero-link"):
        path.symlink_to("/dev/zero")
        kind = "is a character device (through a symlink), not a regular file"
    else:
        path.symlink_to(tmp_path)
        kind = "is a directory (through a symlink), not a regular file"
    result = _agent(repo, upstream, sid if how.endswith("-id") else str(path))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0] == (
        f"error: session file {path} {kind}: give a session id or a session .jsonl file"
    )
    assert upstream.requests == []
    assert path.is_symlink() or path.exists()  # left as it was

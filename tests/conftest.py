"""Shared fixtures: a private ctxscope home, a local Responses-like upstream, a recording proxy."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxscope.proxy.testing import CaptureSession, FakeUpstream, capture_proxy

# Commands the harness runs start `bash -lc`; on machines whose profile runs `pyenv init`, a login
# shell killed mid-rehash (a timeout test) leaves pyenv's lock behind and every later login shell then
# waits PYENV_REHASH_TIMEOUT (60 s) for it. One second keeps such a leftover from stalling the suite.
os.environ.setdefault("PYENV_REHASH_TIMEOUT", "1")

# A suite started in the background by a non-interactive shell (`pytest &` in a CI script) inherits
# SIGINT and SIGQUIT ignored, and every process it starts keeps them ignored across exec: Ctrl-C tests
# (a pty, tmux, `send_signal(SIGINT)`) would then test nothing a person can do. Run as from a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGQUIT) == signal.SIG_IGN:
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


@pytest.fixture(autouse=True)
def ctxscope_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own CTXSCOPE_HOME, so nothing touches the user's real data dir."""
    home = tmp_path_factory.mktemp("ctxscope-home")
    monkeypatch.setenv("CTXSCOPE_HOME", str(home))
    return home


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    """A started FakeUpstream on 127.0.0.1 (stopped after the test)."""
    with FakeUpstream() as up:
        yield up


@pytest.fixture
def recording_path(tmp_path: Path) -> Path:
    return tmp_path / "capture.jsonl"


@pytest.fixture
def capture(upstream: FakeUpstream, recording_path: Path) -> Iterator[CaptureSession]:
    """A recording reverse proxy in front of `upstream`; clients use `f"{capture.url}/v1"`."""
    with capture_proxy(upstream.url, recording_path) as session:
        yield session

"""Default capture names never collide: agents started in the same second each record their own file."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ctxscope.proxy.home
from ctxscope.proxy.store.reader import read_recording
from tests.harness.harness_support import make_repo, write_config, write_script


def test_names_made_in_the_same_second_differ(ctxscope_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Two processes each ask for a name before either creates its file: the clock alone gave both one.
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20261201-120000")
    first, second = ctxscope.proxy.home.new_recording_path("agent"), ctxscope.proxy.home.new_recording_path("agent")
    assert first != second
    assert first.name.startswith("agent-20261201-120000-") and first.suffix == ".jsonl"


def test_two_agents_started_together_each_record(tmp_path: Path, ctxscope_home: Path) -> None:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    script = write_script(tmp_path / "s.json", [{"text": "hi"}])
    argv = [sys.executable, "-m", "ctxscope.cli", "agent", "-p", "hello", "--provider", "script"]
    procs = [
        subprocess.Popen(
            [*argv, "--script", str(script)],
            cwd=repo,
            env=dict(os.environ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        assert out == "hi\n"
    captures = sorted((ctxscope_home / "recordings").glob("agent-*.jsonl"))
    assert len(captures) == 2
    for capture in captures:
        assert [e.endpoint for e in read_recording(capture).exchanges] == ["responses"]

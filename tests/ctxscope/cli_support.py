"""Running `ctxscope` in-process: exit code, stdout and stderr, and whether a traceback escaped."""

from __future__ import annotations

import signal
import sys
from dataclasses import dataclass
from types import FrameType

import pytest

from ctxscope.cli import main


@dataclass
class Result:
    code: int
    out: str
    err: str


TIMEOUT_S = 120


def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    """`ctxscope ARGS` through `ctxscope.cli.main`; an exception other than SystemExit fails the test.

    Bounded: a command that should have refused its input but serves or waits instead fails the test
    after TIMEOUT_S rather than hanging it.
    """
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["ctxscope", *args])

    def too_long(signum: int, frame: FrameType | None) -> None:
        raise AssertionError(f"ctxscope {' '.join(args)} did not finish in {TIMEOUT_S} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(TIMEOUT_S)
    code = 0
    try:
        main()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err
    return Result(code, captured.out, captured.err)

"""Running `ctxscope` in-process: exit code, stdout and stderr, and whether a traceback escaped."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

from ctxscope.cli import main


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    """`ctxscope ARGS` through `ctxscope.cli.main`; an exception other than SystemExit fails the test."""
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["ctxscope", *args])
    code = 0
    try:
        main()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err
    return Result(code, captured.out, captured.err)

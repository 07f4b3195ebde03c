"""Fixtures for the inspector tests: edge recordings written with the real writer, and the CLI."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # builders/edges are plain helper modules here

from edges import EDGES  # noqa: E402

from inspector.analysis import Analysis, analyse_recording  # noqa: E402


@pytest.fixture
def edge(tmp_path: Path) -> Callable[[str], Path]:
    """Write the named edge recording to a real file and return its path."""

    def make(name: str) -> Path:
        return EDGES[name]().write(tmp_path / f"{name}.jsonl")

    return make


@pytest.fixture
def analysed(edge: Callable[[str], Path]) -> Callable[[str], Analysis]:
    """Write the named edge recording, read it back, and analyse it."""
    return lambda name: analyse_recording(edge(name))


def run_ctxscope(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real `ctxscope` command as a subprocess (same interpreter and venv as the tests)."""
    return subprocess.run(
        [sys.executable, "-m", "ctxscope.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def invoke(*args: str) -> subprocess.CompletedProcess[str]:
    """The inspector's commands in-process (typer's runner), for the many success-path checks.

    The real `ctxscope` subprocess (`run_ctxscope`) imports every package and takes seconds to
    start, so it is kept for the checks that need the real entry point (errors, exit codes).
    """
    import typer
    from typer.testing import CliRunner

    from inspector.cli import register

    app = typer.Typer()
    register(app)
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, "")

"""Running the inspector's commands in tests: as the real `ctxscope` subprocess, or in-process."""

from __future__ import annotations

import subprocess
import sys


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

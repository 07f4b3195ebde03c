"""Running the inspector's commands in tests: in-process through the real entry point, or as a subprocess."""

from __future__ import annotations

from tests.cli_support import CliResult, run_cli, run_cli_process

__all__ = ["invoke", "run_ctxscope"]


def run_ctxscope(*args: str, timeout: float = 60) -> CliResult:
    """The real `ctxscope` command as a subprocess: for the entry-point smoke tests only."""
    return run_cli_process(*args, timeout=timeout)


def invoke(*args: str) -> CliResult:
    """`ctxscope ARGS` in-process through `ctxscope.cli.main`: errors, exit codes, output as a user sees."""
    return run_cli(*args)

"""Running the `ctxscope` command in tests: in-process through `ctxscope.cli.main`, or as a subprocess.

In-process is the default: the real entry point (`main`, with its one-line error handling and exit
codes), the real argument parsing and the real command code, without paying an interpreter start and
every package import per call. A subprocess is kept for what only a process boundary shows: signals,
exit on Ctrl-C, a full disk, the console script itself (one smoke test per command).
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

__all__ = ["CliResult", "run_cli", "run_cli_process", "run_routed"]

TIMEOUT_S = 120
"""In-process runs are bounded: a command that should refuse its input but serves or waits fails the
test after this long instead of hanging the suite."""


@dataclass(frozen=True)
class CliResult:
    """What a `ctxscope` run left behind: like `subprocess.CompletedProcess`, for either way of running."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


class _Stdin(io.StringIO):
    """A stdin that is not a terminal, like a subprocess's pipe."""

    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def _environment(cwd: Path | None, env: Mapping[str, str] | None) -> Iterator[None]:
    old_cwd = os.getcwd()
    saved = {key: os.environ.get(key) for key in (env or {})}
    try:
        os.environ.update(env or {})
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(old_cwd)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def _bounded(args: tuple[str, ...], seconds: int) -> Iterator[None]:
    """Fail the call after `seconds` (SIGALRM; only the main thread can take it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def too_long(signum: int, frame: FrameType | None) -> None:
        raise AssertionError(f"ctxscope {' '.join(args)} did not finish in {seconds} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str = "",
    timeout: int = TIMEOUT_S,
) -> CliResult:
    """`ctxscope ARGS` in this process: `ctxscope.cli.main` with argv, cwd, env and stdin set for the call.

    Output is captured by swapping sys.stdout/stderr (the commands print through them, rich included,
    as consoles are made per call). `SystemExit` becomes the return code, as the shell would see it;
    any other exception, and a traceback printed on stderr, fail the test (a user never sees one).
    """
    from ctxscope.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_argv, old_stdin = sys.argv, sys.stdin
    code = 0
    with _environment(cwd, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        sys.argv, sys.stdin = ["ctxscope", *args], _Stdin(stdin)
        try:
            with _bounded(tuple(args), timeout):
                main()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        finally:
            sys.argv, sys.stdin = old_argv, old_stdin
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return CliResult(tuple(args), code, out.getvalue(), err.getvalue())


def run_cli_process(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
) -> CliResult:
    """The real `ctxscope` as a subprocess (same interpreter and venv as the tests)."""
    proc = subprocess.run(
        [sys.executable, "-m", "ctxscope.cli", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return CliResult(tuple(args), proc.returncode, proc.stdout, proc.stderr)


def run_routed(
    args: list[str], tmp: Path, *, through_typer: bool, timeout: int = 180
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """A real `ctxscope ARGS` process, by the usual entry point (`main`: a command's fast path where it
    has one) or straight through the typer app; with the modules it had loaded when it ended."""
    import json

    out = tmp / "modules.json"
    typer_app = "from ctxscope.cli import _build_app as app; app()()"
    start = typer_app if through_typer else "from ctxscope.cli import main; main()"
    code = (
        "import json, sys\n"
        f"sys.argv = ['ctxscope', *{args!r}]\n"
        "try:\n"
        f"    {start}\n"
        "finally:\n"
        f"    open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "CTXSCOPE_HOME": str(tmp / "home"), "COLUMNS": "100", "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout)
    return done, set(json.loads(out.read_text())) if out.exists() else set()

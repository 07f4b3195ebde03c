"""`ctxscope run -- COMMAND [ARGS…]`: record what any agent sends to the model, with nothing to configure.

    ctxscope run -- codex                          # Codex's own TUI, recorded
    ctxscope run --out fix.jsonl -- codex exec "fix the test"
    ctxscope run --inspect -- python3 client.py    # then open the inspector on the recording
    ctxscope run --mode reverse --upstream https://api.openai.com -- python3 client.py

Starts the recording proxy on a free loopback port, runs COMMAND with its environment pointed at it,
and stops the proxy when COMMAND exits. Forward mode (the default) sets the proxy variables and makes
the command trust the proxy's CA (see `ctxscope.proxy.forward.child_environment`): the model endpoints are
recorded in full and the rest as one-line summaries, as `ctxscope proxy --mode forward` does. Reverse
mode sets OPENAI_BASE_URL (read by the OpenAI SDKs) toward `--upstream`, and records everything in full.

COMMAND keeps the terminal: it runs in ctxscope's process group with the same stdin, stdout and stderr,
so a TUI works inside it and Ctrl-C reaches it from the terminal directly (ctxscope ignores it and waits).
SIGTERM and SIGHUP sent to ctxscope are passed on. ctxscope prints nothing while COMMAND runs; at the end
it prints the recording path and a one-line summary on stderr and exits with COMMAND's exit code
(128 + N when a signal N ended it). A run that recorded no model request says so in one more line, with
its likely cause.

Codex's interactive TUI makes its model requests in a background app-server daemon that outlives it
and keeps the environment it started with: `run` adds `--no-daemon` to a Codex command line, so the
run's requests go through the proxy, a daemon already running is left untouched, and none is started
(see `ctxscope.codex_daemon`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer

from ctxscope.codex_daemon import CodexLaunch, prepare_codex
from ctxscope.proxy.errors import ConfigError
from ctxscope.run_trace import TraceWitness

if TYPE_CHECKING:
    from ctxscope.proxy.model import Exchange

__all__ = ["RunResult", "register", "run_behind_proxy"]

PASSED_ON = (signal.SIGTERM, signal.SIGHUP)
"""Signals ctxscope hands to COMMAND; SIGINT and SIGQUIT come from the terminal to both (one process
group), so ctxscope only ignores them."""
IGNORED = (signal.SIGINT, signal.SIGQUIT)


class RunResult:
    """What one `ctxscope run` did: the command's exit code and what the recording holds."""

    def __init__(self, path: Path, launch: CodexLaunch | None = None) -> None:
        self.path = path
        self.launch = launch or CodexLaunch([])
        self.returncode = 0
        self.model_requests = 0
        self.summarised = 0
        self.other = 0
        self.trace_check: list[str] = []
        """The cross-check with Codex's own trace (`ctxscope.run_trace`), for a Codex command."""
        self._lock = threading.Lock()

    def count(self, exchange: Exchange) -> None:
        """Called by the recorder for each exchange written (on the proxy's thread)."""
        from ctxscope.inspector.analysis.analyse import is_handshake  # the analysis's definitions
        from ctxscope.inspector.analysis.turns import makes_turn

        if is_handshake(exchange):
            return  # a socket's handshake: its frames are the model requests counted
        with self._lock:
            if makes_turn(exchange):
                self.model_requests += 1
            elif exchange.meta.get("summary"):
                self.summarised += 1
            else:
                self.other += 1

    def summary(self) -> str:
        """One line for people: how many model requests were recorded, and where."""
        parts = [f"{self.model_requests} model request(s) recorded in full"]
        others = self.summarised + self.other  # the analysis's `other_requests`: the TUI's "+N other requests"
        if others:
            summarised = f", {self.summarised} of them summarised" if self.summarised else ""
            parts.append(f"{others} other request(s) (not model turns{summarised})")
        return f"ctxscope run: {', '.join(parts)} in {self.path}"

    def nothing_recorded(self) -> str | None:
        """One line with the likely cause when no model request was recorded, else None."""
        if self.model_requests:
            return None
        return f"ctxscope run: no model request recorded: {self.launch.cause_of_nothing()}"


def run_behind_proxy(
    command: list[str],
    *,
    mode: str = "forward",
    upstream: str = "https://api.openai.com",
    out: Path | None = None,
    ssl_insecure: bool = False,
    keep_trace: Path | None = None,
) -> RunResult:
    """Run `command` behind a recording proxy until it exits; the proxy is stopped and the recording
    complete when this returns."""
    from ctxscope.proxy.capture_cli import running_capture
    from ctxscope.proxy.capture_filter import CaptureFilter
    from ctxscope.proxy.forward import child_environment

    if not command:
        raise ConfigError("no command to run: give one after --, e.g. ctxscope run -- codex")
    select = CaptureFilter.build([], [], forward=mode == "forward")
    result: RunResult | None = None

    def count(exchange: Exchange) -> None:
        if result is not None:
            result.count(exchange)

    launch = prepare_codex(command, os.environ)  # refuses before anything starts
    witness = TraceWitness.for_command(command, os.environ, keep_trace)
    with running_capture(mode, upstream, "127.0.0.1:0", out, ssl_insecure, select, count) as running:
        result = RunResult(running.path, launch)
        env = child_environment(running.url, running.ca_path, os.environ, base_url=running.base_url)
        running.learn_environment(env)  # its credentials are redacted wherever they appear
        if witness is not None:
            env = witness.environment(env)
        try:
            result.returncode = _run(launch.command, env)
        finally:  # a daemon started behind the proxy would keep its address once it is gone
            for proxy_address in dict.fromkeys([running.url, running.base_url]):
                if proxy_address and launch.stop_left_daemon(proxy_address):
                    break
    warning = running.lost_warning()
    if warning:
        print(warning, file=sys.stderr)
    if witness is not None:
        result.trace_check = witness.check(result.path, running.writer.redactor)
    return result


def _run(command: list[str], env: dict[str, str]) -> int:
    """Run `command` in the foreground with `env`; its exit code as a shell reports it."""
    try:
        child = subprocess.Popen(command, env=env)
    except FileNotFoundError:
        raise ConfigError(f"command not found: {command[0]}") from None
    except PermissionError:
        raise ConfigError(f"cannot run {command[0]}: permission denied") from None
    except OSError as err:
        raise ConfigError(f"cannot run {command[0]}: {err.strerror}") from None

    def pass_on(signum: int, frame: FrameType | None) -> None:
        if child.poll() is None:
            child.send_signal(signum)

    def ignore(signum: int, frame: FrameType | None) -> None:
        pass  # the terminal sent it to COMMAND too; COMMAND decides, ctxscope waits for it

    # Installed after the child exists: a handler (not SIG_IGN) is reset by exec, so COMMAND keeps the
    # default dispositions.
    previous = {sig: signal.signal(sig, pass_on) for sig in PASSED_ON}
    previous |= {sig: signal.signal(sig, ignore) for sig in IGNORED}
    try:
        code = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - code if code < 0 else code


def run_command(
    command: Annotated[list[str], typer.Argument(help="The command to run, after --.", show_default=False)],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Recording file (default: a new file in ctxscope's recordings directory)."),
    ] = None,
    inspect: Annotated[
        bool, typer.Option("--inspect", help="Open the inspector on the recording when COMMAND exits.")
    ] = False,
    mode: Annotated[
        str,
        typer.Option("--mode", help="forward (proxy variables + CA, the default) or reverse (OPENAI_BASE_URL)."),
    ] = "forward",
    upstream: Annotated[
        str, typer.Option("--upstream", help="Reverse mode: where the proxy sends requests.")
    ] = "https://api.openai.com",
    keep_trace: Annotated[
        Path | None,
        typer.Option("--keep-trace", help="Keep Codex's own trace in DIR, redacted like the recording."),
    ] = None,
) -> None:
    """Run COMMAND behind the recording proxy and record what it sends to the model."""
    if mode not in ("forward", "reverse"):
        raise ConfigError(f"unknown --mode {mode!r}: use forward or reverse")
    result = run_behind_proxy(list(command), mode=mode, upstream=upstream, out=out, keep_trace=keep_trace)
    print(result.summary(), file=sys.stderr, flush=True)
    for line in result.trace_check:
        print(line, file=sys.stderr, flush=True)
    nothing = result.nothing_recorded()
    if nothing:
        print(nothing, file=sys.stderr, flush=True)
    if inspect:
        if result.model_requests:
            from ctxscope.inspector.tui.launch import launch  # Textual loads only when asked for

            launch([result.path], follow=False, snapshot=None, turn=None, view=None, size="120x40")
        else:
            print("ctxscope run: no model requests recorded; nothing to inspect", file=sys.stderr)
    raise typer.Exit(result.returncode)


def register(app: typer.Typer) -> None:
    """Add the `run` command to the ctxscope app."""
    settings = {"allow_interspersed_args": False, "ignore_unknown_options": True}
    app.command("run", context_settings=settings)(run_command)

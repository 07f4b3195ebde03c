"""`ctxscope proxy`: capture what a client sends to the model, one line per exchange, until Ctrl-C.

ctxscope proxy                                   # reverse proxy to https://api.openai.com
ctxscope proxy --upstream https://chatgpt.com/backend-api/codex
ctxscope proxy --mode forward                    # HTTPS proxy with TLS interception
ctxscope proxy --mode forward --only chatgpt.com --exclude '/backend-api/plugins/*'

In forward mode the model API endpoints are recorded in full and the client's other traffic
(telemetry, plugin sync) as one-line summary exchanges without bodies; `--only`/`--exclude` choose.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

import typer

from ctxscope.proxy.capture_filter import CaptureFilter
from ctxscope.proxy.endpoints import client_base_url
from ctxscope.proxy.errors import ConfigError, CtxscopeError
from ctxscope.proxy.home import mitmproxy_confdir, new_recording_path

if TYPE_CHECKING:
    from ctxscope.proxy.model import Exchange
    from ctxscope.proxy.record_process import RecordingProcess
    from ctxscope.proxy.store.writer import RecordingWriter

__all__ = [
    "RunningCapture",
    "is_loopback",
    "parse_listen",
    "register",
    "remote_warning",
    "run_capture",
    "running_capture",
]

DEFAULT_UPSTREAM = "https://api.openai.com"
DEFAULT_LISTEN = "127.0.0.1:8787"


def parse_listen(value: str) -> tuple[str, int]:
    """`HOST:PORT`, `:PORT` or `PORT` → (host, port); ConfigError if malformed."""
    host, sep, port_text = value.rpartition(":")
    if not sep:
        host, port_text = "", value
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise ConfigError(f"bad --listen {value!r}: use HOST:PORT, e.g. 127.0.0.1:8787") from None
    if not 0 <= port <= 65535:
        raise ConfigError(f"bad --listen {value!r}: the port must be 0-65535")
    return host, port


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def remote_warning(host: str) -> str | None:
    """The warning for a listen address other machines can reach, or None for loopback."""
    if is_loopback(host):
        return None
    return (
        f"warning: listening on {host}: the proxy, and the conversations it relays, are reachable "
        "from the network; use 127.0.0.1 unless that is intended"
    )


def _check_upstream(upstream: str) -> None:
    try:
        parts = urlsplit(upstream)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as err:
        raise ConfigError(f"bad --upstream {upstream!r} ({err}): use e.g. https://api.openai.com") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"bad --upstream {upstream!r}: use an http(s) URL such as https://api.openai.com")


def _say(text: str) -> None:
    print(text, flush=True)


def run_capture(
    mode: str,
    upstream: str,
    listen: str,
    out: Path | None,
    ssl_insecure: bool = False,
    only: list[str] | None = None,
    exclude: list[str] | None = None,
) -> Path:
    """Run the capturing proxy until SIGINT/SIGTERM; return the recording path."""
    try:
        select = CaptureFilter.build(only or [], exclude or [], forward=mode == "forward")
    except ValueError as err:
        raise ConfigError(f"bad --only or --exclude: {err}") from None
    stop = threading.Event()
    with _stop_on_signals(stop):  # installed first: a Ctrl-C during start-up also stops cleanly
        return _capture(mode, upstream, listen, out, ssl_insecure, select, stop)


def _capture(
    mode: str,
    upstream: str,
    listen: str,
    out: Path | None,
    ssl_insecure: bool,
    select: CaptureFilter,
    stop: threading.Event,
) -> Path:
    from ctxscope.proxy.forward import client_env_lines
    from ctxscope.proxy.live_log import LiveLog

    on_exchange = LiveLog(show_host=mode == "forward")
    with running_capture(mode, upstream, listen, out, ssl_insecure, select, on_exchange) as running:
        path = running.path
        _say(f"recording to {path}")
        if running.ca_path is None:
            _say(f"listening on {running.url} → {upstream} (point clients at {running.base_url})")
        else:
            _say(f"forward proxy on {running.url}; CA certificate: {running.ca_path}")
            _say(f"recorded in full: {select.summary_line()}; the rest as one-line summaries")
            _say("set these in the client's environment:")
            for line in client_env_lines(running.url, running.ca_path):
                _say(f"  {line}")
        _say("Ctrl-C to stop")
        while not stop.wait(0.5):  # bounded waits so the signal is seen promptly on every platform
            pass
    writer = running.writer
    _say(f"stopped; {writer.exchanges_written} exchange(s) recorded in {path}")
    warning = running.lost_warning()
    if warning:
        print(warning, file=sys.stderr)
    return path


@dataclass
class RunningCapture:
    """A recording proxy that `running_capture` started: where it listens and what it writes."""

    path: Path
    url: str
    """The proxy's own address, `http://127.0.0.1:PORT`."""
    base_url: str | None
    """Reverse mode: the base URL clients are pointed at (the upstream's path prefix kept)."""
    ca_path: Path | None
    """Forward mode: the interception CA clients must trust."""
    writer: RecordingWriter | RecordingProcess
    """Writes the recording: in a process of its own where the platform allows (see `record_process`)."""

    def learn_environment(self, env: dict[str, str]) -> None:
        """Credentials in `env` (a child's environment) are redacted wherever they appear."""
        from ctxscope.proxy.record_process import RecordingProcess

        if isinstance(self.writer, RecordingProcess):
            self.writer.learn_environment(env)
        else:
            self.writer.redactor.learn_environment(env)

    def lost_warning(self) -> str | None:
        """A warning line if some exchanges could not be written, else None."""
        lost = self.writer.held + self.writer.dropped
        if not lost:
            return None
        return f"warning: {lost} exchange(s) could not be written ({self.writer.last_error})"


@contextlib.contextmanager
def running_capture(
    mode: str,
    upstream: str,
    listen: str,
    out: Path | None,
    ssl_insecure: bool,
    select: CaptureFilter,
    on_exchange: Callable[[Exchange], None] | None,
) -> Iterator[RunningCapture]:
    """Start the recording proxy (mode, upstream, listen address, recording file); stop it, drain it and
    close the recording when the block ends. Bad settings raise `ConfigError` before anything listens,
    and leave no empty recording behind. Shared by `ctxscope proxy` and `ctxscope run`."""
    # mitmproxy takes most of a second to import: only the capture itself pays for it, not `--help`.
    from ctxscope.proxy.forward import ensure_ca
    from ctxscope.proxy.recorder import Recorder
    from ctxscope.proxy.redact import Redactor
    from ctxscope.proxy.runner import MODES, ProxyServer, split_upstream

    if mode not in MODES:
        raise ConfigError(f"unknown --mode {mode!r}: use one of {', '.join(MODES)}")
    if mode == "reverse":
        _check_upstream(upstream)
    host, port = parse_listen(listen)
    warning = remote_warning(host)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    try:  # ctxscope's home (recordings, the CA) may be unwritable
        path = out if out is not None else new_recording_path()
        confdir = mitmproxy_confdir() if mode == "forward" else None
        ca_path = ensure_ca(confdir) if confdir is not None else None
    except OSError as err:
        where = f"{err.filename!s}: " if err.filename else ""
        raise ConfigError(
            f"cannot create ctxscope's files ({where}{err.strerror}); set CTXSCOPE_HOME to a writable folder"
        ) from None
    existed = path.exists()
    # The header is written as given: a key in the upstream URL (user:token@, ?key=) must not reach it.
    shown_upstream = Redactor().url(upstream) if mode == "reverse" else None
    meta = {
        "mode": mode,
        "upstream": shown_upstream,
        "cwd": os.getcwd(),
        "recorded_in_full": select.describe(),
    }
    try:
        writer = _open_recording(path, meta)
    except OSError as err:
        raise ConfigError(
            f"cannot write the recording {str(path)!r}: {err.strerror}; choose another --out"
        ) from None
    recorder = Recorder(writer, on_exchange=on_exchange, select=select)
    try:  # a bad --upstream is found here too: it must not leave an empty recording behind either
        server = ProxyServer(
            [recorder],
            mode=mode,
            upstream=upstream if mode == "reverse" else None,
            listen_host=host,
            listen_port=port,
            confdir=confdir,
            ssl_insecure=ssl_insecure,
        )
        server.start()
    except CtxscopeError:
        writer.close()
        if not existed:
            path.unlink(missing_ok=True)  # do not leave an empty recording behind
        raise
    base = client_base_url(server.url, split_upstream(upstream)[1]) if mode == "reverse" else None
    try:
        yield RunningCapture(path, server.url, base, ca_path, writer)
    finally:
        recorder.shutting_down = True  # flows cut by the stop are the shutdown's, not a side's
        server.stop()
        recorder.drain()
        writer.close()


def _open_recording(path: Path, meta: dict[str, Any]) -> RecordingWriter | RecordingProcess:
    """The recording's writer: a process of its own on POSIX (the proxy's process then only relays;
    `record_process` says why), the in-process writer elsewhere."""
    if os.name == "posix":
        from ctxscope.proxy.record_process import RecordingProcess

        return RecordingProcess(path, meta)
    from ctxscope.proxy.store.writer import RecordingWriter

    return RecordingWriter(path, meta=meta)


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGINT and SIGTERM set `stop` instead of raising, for the duration of the block."""

    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def proxy_command(
    mode: Annotated[
        str, typer.Option("--mode", help="reverse (to --upstream) or forward (HTTPS proxy).")
    ] = "reverse",
    upstream: Annotated[
        str, typer.Option("--upstream", help="Reverse mode target; request paths are kept.")
    ] = DEFAULT_UPSTREAM,
    listen: Annotated[
        str, typer.Option("--listen", help="HOST:PORT to listen on (port 0 = any).")
    ] = DEFAULT_LISTEN,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Recording file (default: a new file in ctxscope's recordings directory)."
        ),
    ] = None,
    ssl_insecure: Annotated[
        bool,
        typer.Option(
            "--ssl-insecure", help="Do not verify the upstream's TLS certificate (local tests only)."
        ),
    ] = False,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            help="Record in full only what matches: host, *.host glob, /path glob or host/path (repeatable). "
            "Forward mode default: the model API endpoints.",
        ),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", help="Record what matches as a one-line summary, no bodies (repeatable)."),
    ] = None,
) -> None:
    """Record every exchange between a client and the model backend, passing SSE through as it arrives."""
    try:
        run_capture(mode, upstream, listen, out, ssl_insecure, list(only or []), list(exclude or []))
    except CtxscopeError as err:
        print(f"error: {err}", file=sys.stderr)
        raise typer.Exit(2) from None


def register(app: typer.Typer) -> None:
    """Add the `proxy` command to the ctxscope app."""
    app.command("proxy")(proxy_command)


if __name__ == "__main__":
    _app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(_app)
    _app()

"""Run mitmproxy in-process: `ProxyServer`, a DumpMaster on its own thread and event loop.

    with ProxyServer([Recorder(writer)], upstream="https://api.openai.com") as proxy:
        client = OpenAI(base_url=f"{proxy.url}/v1")

Modes:
- ``reverse`` (default): every request goes to `upstream`, path kept. mitmproxy's reverse spec takes
  no path, so an upstream path prefix (``https://chatgpt.com/backend-api/codex``) is prepended by a
  small addon unless the client already sent it: base URLs ``http://127.0.0.1:PORT`` and
  ``http://127.0.0.1:PORT/backend-api/codex`` both work.
- ``forward``: a regular HTTP(S) proxy that intercepts TLS with the CA in `confdir` (default
  `ctxscope.proxy.home.mitmproxy_confdir()`; see `ctxscope.proxy.forward` for the CA and the client environment lines).

mitmproxy's `ctx` is process-global, so only one ProxyServer may run at a time in a process.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
from pathlib import Path
from typing import Any

from mitmproxy import http
from mitmproxy.options import Options
from mitmproxy.tools.dump import DumpMaster

from ctxscope.proxy.endpoints import split_upstream  # re-exported: it lives where no mitmproxy loads
from ctxscope.proxy.errors import ConfigError, ProxyStartError
from ctxscope.proxy.home import mitmproxy_confdir

__all__ = ["ProxyServer", "split_upstream"]

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
MODES = ("reverse", "forward")

_one_master = threading.Lock()  # mitmproxy.ctx is process-global: one master at a time


class _PathPrefix:
    """Prepends the upstream's path prefix (reverse mode) unless the client already sent it."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        path = flow.request.path
        if (
            path != self.prefix
            and not path.startswith(self.prefix + "/")
            and not path.startswith(self.prefix + "?")
        ):
            flow.request.path = self.prefix + path


class _Ready:
    """Learns the bound address in the `running` hook and wakes up `start()`."""

    def __init__(self, server: ProxyServer, errors: _StartupErrors) -> None:
        self.server = server
        self.errors = errors

    def running(self) -> None:
        from mitmproxy import ctx

        master: Any = ctx.master
        proxyserver: Any = master.addons.get("proxyserver")
        addrs = proxyserver.listen_addrs()
        if addrs and not self.errors.messages:
            self.server._bound = (str(addrs[0][0]), int(addrs[0][1]))
        else:
            self.server._failure = self.server._describe(None, self.errors.messages)
            master.shutdown()
        self.errors.messages.clear()
        self.server._ready.set()


class _StartupErrors(logging.Handler):
    """Keeps mitmproxy's error log lines so a failed start can say why."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.messages) < 20:  # only start-up matters; never grow over a long session
            self.messages.append(record.getMessage())


class ProxyServer:
    """mitmproxy with the given addons, listening on loopback (port 0 = any free port)."""

    def __init__(
        self,
        addons: list[Any],
        *,
        mode: str = "reverse",
        upstream: str | None = None,
        listen_host: str = "127.0.0.1",
        listen_port: int = 0,
        confdir: Path | None = None,
        ssl_insecure: bool = False,
    ) -> None:
        if mode not in MODES:
            raise ConfigError(f"unknown proxy mode {mode!r}: use one of {', '.join(MODES)}")
        if mode == "reverse" and not upstream:
            raise ConfigError("reverse mode needs an upstream URL (--upstream)")
        self.addons = list(addons)
        self.mode = mode
        self.upstream = upstream
        self.listen_host = listen_host
        self.listen_port = listen_port
        self.confdir = confdir
        self.ssl_insecure = ssl_insecure
        self._mode_spec, self._prefix = self._spec()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._master: Any = None
        self._bound: tuple[str, int] | None = None
        self._failure: str | None = None
        self._holding_lock = False

    def _spec(self) -> tuple[str, str]:
        if self.mode == "forward":
            return "regular", ""
        origin, prefix = split_upstream(self.upstream or "")
        return f"reverse:{origin}", prefix

    @property
    def host(self) -> str:
        return self._bound[0] if self._bound else self.listen_host

    @property
    def port(self) -> int:
        if self._bound is None:
            raise RuntimeError("the proxy is not running")
        return self._bound[1]

    @property
    def url(self) -> str:
        """`http://HOST:PORT` of the listener (the base URL for reverse mode, the proxy URL for forward)."""
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and self._bound is not None

    def start(self) -> ProxyServer:
        """Start listening; block until ready. Raises ProxyStartError with a one-line reason."""
        if not _one_master.acquire(blocking=False):
            raise ProxyStartError("another ctxscope proxy is already running in this process; stop it first")
        self._holding_lock = True
        self._ready.clear()
        self._failure = None
        self._thread = threading.Thread(target=self._thread_main, name="ctxscope-proxy", daemon=True)
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT_S):
            self.stop()
            raise ProxyStartError(f"the proxy did not start within {START_TIMEOUT_S:.0f} s")
        if self._failure is not None or self._bound is None:
            reason = self._failure or "unknown error"
            self.stop()
            raise ProxyStartError(reason)
        return self

    def stop(self) -> None:
        """Stop the proxy and wait for its thread; safe to call twice."""
        master: Any = self._master
        thread = self._thread
        if master is not None and self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # loop already closed
                master.shutdown()
        if thread is not None:
            thread.join(STOP_TIMEOUT_S)
        self._thread = None
        self._master = None
        if thread is not None and not thread.is_alive():
            # The master's reference cycles hold mitmproxy_rs (Rust) objects. Left to interpreter
            # finalisation they crash the process at exit about one time in three (SIGSEGV after
            # `ctxscope proxy` was stopped); collected here, while the runtime is intact, they never do.
            gc.collect()
        if self._holding_lock:
            self._holding_lock = False
            _one_master.release()

    def __enter__(self) -> ProxyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _thread_main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        errors = _StartupErrors()
        logging.getLogger().addHandler(errors)
        try:
            loop.run_until_complete(self._run(errors))
        except BaseException as exc:  # noqa: BLE001 - mitmproxy calls sys.exit() on start-up errors
            if not self._ready.is_set():
                self._failure = self._describe(exc, errors.messages)
        finally:
            logging.getLogger().removeHandler(errors)
            self._shutdown_loop(loop)
            self._ready.set()

    async def _run(self, errors: _StartupErrors) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(_quiet_exception_handler)
        opts: Any = Options(
            listen_host=self.listen_host,
            listen_port=self.listen_port,
            mode=[self._mode_spec],
        )
        # Always a ctxscope-owned confdir: mitmproxy creates its CA there even in reverse mode, and
        # its default (~/.mitmproxy) is not ours to write to.
        opts.update(confdir=str(self.confdir or mitmproxy_confdir()))
        master: Any = DumpMaster(opts, loop=loop, with_termlog=False, with_dumper=False)
        # mitmproxy's errorcheck prints to stderr and sys.exit()s on start-up errors; `_Ready` reports
        # them as one clear ProxyStartError instead.
        errorcheck: Any = master.addons.get("errorcheck")
        if errorcheck is not None:
            errorcheck.finish()
            master.addons.remove(errorcheck)
        # Options owned by addons exist only once the master has loaded them.
        master.options.update(ssl_insecure=self.ssl_insecure, connection_strategy="lazy")
        if self._prefix:
            master.addons.add(_PathPrefix(self._prefix))
        master.addons.add(*self.addons)
        master.addons.add(_Ready(self, errors))
        self._master = master
        try:
            await master.run()
        finally:
            # mitmproxy leaves its listening sockets open after run() returns; close them so the port
            # is free (and refuses connections) as soon as stop() returns.
            proxyserver: Any = master.addons.get("proxyserver")
            if proxyserver is not None:
                with contextlib.suppress(Exception):
                    await proxyserver.servers.update([])
        if not self._ready.is_set():
            self._failure = self._describe(None, errors.messages)

    def _describe(self, exc: BaseException | None, messages: list[str]) -> str:
        where = f"{self.listen_host}:{self.listen_port}"
        text = " ".join(messages)
        if "in use" in text.lower() or "errno 98" in text.lower() or "10048" in text:
            return f"cannot listen on {where}: the port is already in use; choose another with --listen"
        if messages:
            return f"cannot start the proxy on {where}: {messages[-1].splitlines()[0]}"
        if exc is not None and not isinstance(exc, SystemExit):
            return f"cannot start the proxy on {where}: {exc}"
        return f"cannot start the proxy on {where}"

    @staticmethod
    def _shutdown_loop(loop: asyncio.AbstractEventLoop) -> None:
        try:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


def _quiet_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Drop the spurious CancelledError of connection tasks at shutdown (Python 3.11); log the rest."""
    if isinstance(context.get("exception"), asyncio.CancelledError):
        return
    loop.default_exception_handler(context)

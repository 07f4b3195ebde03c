"""Start a replay server in-process: `serve_cassette(...)` → a running `ReplayServer`.

    with serve_cassette("recordings/script-example.json") as server:
        client = OpenAI(base_url=f"{server.url}/v1", api_key="x")
        ...
    assert not server.report.problems()

The server is the ordinary `ProxyServer` in reverse mode toward a dummy upstream that is never
contacted (every request is answered by the `Replayer`). `serve_script([...])` takes a script document
directly, for tests and the harness's `--provider script`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ctxscope.proxy.replay.addon import Replayer
from ctxscope.proxy.replay.cassette import Cassette, cassette_from_script, load_cassette
from ctxscope.proxy.replay.options import PaceMode, ReplayOptions
from ctxscope.proxy.replay.report import ReplayReport
from ctxscope.proxy.replay.script import Script, parse_script
from ctxscope.proxy.runner import ProxyServer

__all__ = ["ReplayServer", "serve_cassette", "serve_script", "DUMMY_UPSTREAM"]

DUMMY_UPSTREAM = "http://127.0.0.1:9"
"""Reverse-mode target that is never contacted (port 9 is `discard`; nothing listens there)."""


class ReplayServer:
    """A running replay: `.url` (base URL, e.g. `http://127.0.0.1:PORT`), `.report`, `.stop()`."""

    def __init__(self, replayer: Replayer, proxy: ProxyServer) -> None:
        self.replayer = replayer
        self.proxy = proxy

    @property
    def url(self) -> str:
        return self.proxy.url

    @property
    def port(self) -> int:
        return self.proxy.port

    @property
    def cassette(self) -> Cassette:
        assert self.replayer.cassette is not None
        return self.replayer.cassette

    @property
    def report(self) -> ReplayReport:
        """A snapshot of what the replay did so far."""
        return self.replayer.report.snapshot()

    def stop(self) -> None:
        self.proxy.stop()

    def __enter__(self) -> ReplayServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _as_cassette(source: Cassette | Script | Path | str | list[Any] | dict[str, Any]) -> Cassette:
    if isinstance(source, Cassette):
        return source
    if isinstance(source, Script):
        return cassette_from_script(source)
    if isinstance(source, list | dict):
        return cassette_from_script(parse_script(source))
    return load_cassette(Path(source))


def serve_cassette(
    source: Cassette | Script | Path | str | list[Any] | dict[str, Any],
    options: ReplayOptions | None = None,
    *,
    listen_host: str = "127.0.0.1",
    listen_port: int = 0,
    extra_addons: Iterable[Any] = (),
    upstream: str | None = None,
    **changes: Any,
) -> ReplayServer:
    """Load `source` (a recording or script file, a parsed script, or a Cassette) and start serving it.

    `options` (and `changes`, its fields by name: `match="sequential"`, `match_on=[...]`, ...) say how;
    see `ReplayOptions`. Raises `RecordingError` for a bad file, `ValueError` for a bad option and
    `ProxyStartError` if the port is taken. `upstream` and `extra_addons` exist for record mode `new`
    (forward what the cassette cannot answer, with `passthrough_when_exhausted`, and record it); plain
    replays leave them alone.
    """
    cassette = _as_cassette(source)
    replayer = Replayer(cassette, ReplayOptions.of(options, **changes))
    proxy = ProxyServer(
        [replayer, *extra_addons],
        mode="reverse",
        upstream=upstream or DUMMY_UPSTREAM + cassette.upstream_prefix,
        listen_host=listen_host,
        listen_port=listen_port,
    )
    proxy.start()
    return ReplayServer(replayer, proxy)


def serve_script(
    script: list[Any] | dict[str, Any] | Path | str, *, pace: PaceMode = "fast", **kwargs: Any
) -> ReplayServer:
    """Serve a script cassette (a document or a file) in order; same handle as `serve_cassette`."""
    return serve_cassette(script, match="sequential", pace=pace, **kwargs)

"""A capturing proxy in one call, for tests: `with capture_proxy(upstream.url, path) as cap: ...`.

Starts `ProxyServer([Recorder(RecordingWriter(path))])` and, on exit, stops it, waits for the
recorder's worker and closes the file, so the recording is complete when the block ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxscope.proxy.model import Exchange
from ctxscope.proxy.recorder import Recorder
from ctxscope.proxy.runner import ProxyServer

__all__ = ["CaptureSession", "capture_proxy"]


@dataclass
class CaptureSession:
    """The running proxy, its recorder and writer, and the exchanges seen so far (in memory)."""

    server: ProxyServer
    recorder: Recorder
    writer: Any
    path: Path
    exchanges: list[Exchange]

    @property
    def url(self) -> str:
        return self.server.url

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Exchange]:
        """Wait until `count` exchanges were recorded; return them in completion order."""
        if not self.recorder.wait_for(count, timeout):
            raise TimeoutError(f"only {self.recorder.processed} of {count} exchanges recorded in {timeout} s")
        return list(self.exchanges)


@contextmanager
def capture_proxy(
    upstream: str | None,
    path: Path,
    *,
    mode: str = "reverse",
    confdir: Path | None = None,
    ssl_insecure: bool = False,
    meta: dict[str, Any] | None = None,
    select: Any = None,
) -> Iterator[CaptureSession]:
    """Run a recording proxy toward `upstream` writing to `path` for the duration of the block.

    `select` is a `CaptureFilter` (what is recorded in full; None records everything in full)."""
    from ctxscope.proxy.store.writer import RecordingWriter

    seen: list[Exchange] = []
    with RecordingWriter(path, meta=meta or {"mode": mode, "upstream": upstream}) as writer:
        recorder = Recorder(writer, on_exchange=seen.append, select=select)
        server = ProxyServer(
            [recorder], mode=mode, upstream=upstream, confdir=confdir, ssl_insecure=ssl_insecure
        )
        with server:
            try:
                yield CaptureSession(server, recorder, writer, path, seen)
            finally:
                server.stop()
                recorder.drain()

"""Where the harness's requests go: straight to the provider, or through the in-process capture proxy.

Capture is on by default. The proxy runs in reverse mode toward the provider's origin (its path
prefix kept) with the `Recorder` writing every exchange to a recording; the client then talks to
`http://127.0.0.1:PORT<prefix>`. For the offline script provider the same proxy also carries the
replayer (`ctxscope.proxy.replay.serve_script`), which answers every request itself, with the recorder as an
extra addon — so scripted runs are recorded like live ones (one proxy per process, both addons).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxscope.harness.providers.base import Provider
from ctxscope.harness.providers.script import ScriptProvider
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.store.writer import RecordingWriter

if TYPE_CHECKING:  # mitmproxy loads only when a route starts, so `ctxscope --help` stays quick
    from ctxscope.proxy.recorder import Recorder
    from ctxscope.proxy.runner import ProxyServer

__all__ = ["Route", "open_route"]


@dataclass
class Route:
    """The base URL the client should use, and what to stop afterwards."""

    base_url: str
    capture_path: Path | None = None
    proxy: ProxyServer | None = None
    writer: RecordingWriter | None = None
    recorder: Recorder | None = None

    def close(self) -> None:
        """Stop the proxy first (in-flight exchanges get written), then close the recording."""
        if self.recorder is not None:
            self.recorder.drain()
            self.recorder.shutting_down = True  # what the stop cuts is "interrupted by shutdown"
        if self.proxy is not None:
            self.proxy.stop()
            self.proxy = None
        if self.recorder is not None:
            self.recorder.drain()  # the flows the stop ended
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def __enter__(self) -> Route:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_route(provider: Provider, capture: Path | None, meta: dict[str, Any] | None = None) -> Route:
    """Start what `provider` and `capture` need; `capture=None` means no recording."""
    if capture is None and not isinstance(provider, ScriptProvider):
        # nothing to start: no mitmproxy is imported (the core install has none; see README, Install)
        return Route(base_url=provider.base_url)
    from ctxscope.proxy.recorder import Recorder
    from ctxscope.proxy.replay import serve_script
    from ctxscope.proxy.runner import ProxyServer

    writer: RecordingWriter | None = None
    recorder: list[Any] = []
    fresh = capture is not None and not (capture.exists() and capture.stat().st_size > 0)
    if capture is not None:
        try:
            capture.parent.mkdir(parents=True, exist_ok=True)
            writer = RecordingWriter(
                capture,
                meta={
                    "upstream": provider.base_url,
                    "mode": "reverse",
                    "client": "ctxscope agent",
                    **(meta or {}),
                },
                # headers a provider's config adds (`X-Auth-Token`, ...) are redacted like credentials
                secret_headers=provider.extra_headers,
            )
        except OSError as e:
            raise ConfigError(
                f"cannot write the capture file {capture} ({e.strerror or e.__class__.__name__}): "
                "choose another --capture path, or --no-capture"
            ) from e
        recorder = [Recorder(writer)]
    try:
        if isinstance(provider, ScriptProvider):
            provider.check()
            # The replay server is the proxy; the recorder rides along as an extra addon.
            replay = serve_script(provider.script, extra_addons=recorder)  # type: ignore[arg-type]
            return Route(
                base_url=f"{replay.url}{provider.path_prefix}",
                capture_path=capture,
                proxy=replay.proxy,
                writer=writer,
                recorder=recorder[0] if recorder else None,
            )
        if not recorder:
            return Route(base_url=provider.base_url)
        server = ProxyServer(recorder, mode="reverse", upstream=provider.base_url)
        server.start()
    except BaseException:
        if writer is not None:
            writer.close()
            if fresh and capture is not None:
                # Nothing was captured: a header-only file would only look like an empty run.
                capture.unlink(missing_ok=True)
        raise
    return Route(
        base_url=f"{server.url}{provider.path_prefix}",
        capture_path=capture,
        proxy=server,
        writer=writer,
        recorder=recorder[0],
    )

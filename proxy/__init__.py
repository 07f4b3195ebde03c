"""ctxscope's bottom layer: capture, the recording file, and replay. Imports neither other package.

    store/           the recording file: RecordingWriter, read_recording
    redact/          Redactor: no credential reaches a file (names, shapes, numbered placeholders)
    model            Exchange and its parts, as the reader returns them
    runner           ProxyServer: in-process mitmproxy on its own thread
    recorder         Recorder: the capture addon (SSE tapped, never buffered; WebSocket turns)
    responses/       the Responses stream toolkit: SSE parser and encoder, the fold, event builders,
                     thread hints
    replay/          Replayer, cassettes, script cassettes, strict/sequential matching
    home             where recordings, sessions and the CA live (CTXSCOPE_HOME)
    errors           CtxscopeError and its subclasses

Names load on first use, so reading a recording never imports mitmproxy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proxy.lazy import lazy_attributes

if TYPE_CHECKING:  # what the names resolve to, for type checkers and editors
    from proxy.endpoints import classify_endpoint
    from proxy.errors import ConfigError, CtxscopeError, ProxyStartError, RecordingError, ReplayMismatch
    from proxy.model import Exchange, SseEvent
    from proxy.recorder import Recorder
    from proxy.redact import Redactor
    from proxy.replay import Replayer, load_cassette, serve_cassette
    from proxy.responses import SseParser, accumulate
    from proxy.runner import ProxyServer
    from proxy.store import Recording, RecordingWriter, read_recording

__all__ = [
    "ConfigError",
    "CtxscopeError",
    "Exchange",
    "ProxyServer",
    "ProxyStartError",
    "Recorder",
    "Recording",
    "RecordingError",
    "RecordingWriter",
    "Redactor",
    "ReplayMismatch",
    "Replayer",
    "SseEvent",
    "SseParser",
    "accumulate",
    "classify_endpoint",
    "load_cassette",
    "read_recording",
    "serve_cassette",
]

_WHERE = {
    "ConfigError": "proxy.errors",
    "CtxscopeError": "proxy.errors",
    "ProxyStartError": "proxy.errors",
    "RecordingError": "proxy.errors",
    "ReplayMismatch": "proxy.errors",
    "Exchange": "proxy.model",
    "SseEvent": "proxy.model",
    "ProxyServer": "proxy.runner",
    "Recorder": "proxy.recorder",
    "Recording": "proxy.store",
    "RecordingWriter": "proxy.store",
    "Redactor": "proxy.redact",
    "read_recording": "proxy.store",
    "Replayer": "proxy.replay",
    "load_cassette": "proxy.replay",
    "serve_cassette": "proxy.replay",
    "SseParser": "proxy.responses",
    "accumulate": "proxy.responses",
    "classify_endpoint": "proxy.endpoints",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

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

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:  # what the names resolve to, for type checkers and editors
    from ctxscope.proxy.endpoints import classify_endpoint
    from ctxscope.proxy.errors import (
        ConfigError,
        CtxscopeError,
        ProxyStartError,
        RecordingError,
        ReplayMismatch,
    )
    from ctxscope.proxy.model import Exchange, SseEvent
    from ctxscope.proxy.recorder import Recorder
    from ctxscope.proxy.redact import Redactor
    from ctxscope.proxy.replay import Replayer, load_cassette, serve_cassette
    from ctxscope.proxy.responses import SseParser, accumulate
    from ctxscope.proxy.runner import ProxyServer
    from ctxscope.proxy.store import Recording, RecordingWriter, read_recording

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
    "ConfigError": "ctxscope.proxy.errors",
    "CtxscopeError": "ctxscope.proxy.errors",
    "ProxyStartError": "ctxscope.proxy.errors",
    "RecordingError": "ctxscope.proxy.errors",
    "ReplayMismatch": "ctxscope.proxy.errors",
    "Exchange": "ctxscope.proxy.model",
    "SseEvent": "ctxscope.proxy.model",
    "ProxyServer": "ctxscope.proxy.runner",
    "Recorder": "ctxscope.proxy.recorder",
    "Recording": "ctxscope.proxy.store",
    "RecordingWriter": "ctxscope.proxy.store",
    "Redactor": "ctxscope.proxy.redact",
    "read_recording": "ctxscope.proxy.store",
    "Replayer": "ctxscope.proxy.replay",
    "load_cassette": "ctxscope.proxy.replay",
    "serve_cassette": "ctxscope.proxy.replay",
    "SseParser": "ctxscope.proxy.responses",
    "accumulate": "ctxscope.proxy.responses",
    "classify_endpoint": "ctxscope.proxy.endpoints",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

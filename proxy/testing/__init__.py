"""Test helpers shipped with the package: local Responses-like upstreams and SSE stream builders.

`FakeUpstream` serves HTTP/SSE; `WsUpstream` serves the Responses WebSocket as observed toward Codex
(prewarm, chains, remote compaction v2, `previous_response_not_found`). The builders and encoders are
`ctxscope.proxy.responses`'s, re-exported here for tests. `WsUpstream` needs the `websockets` package (a dev
dependency), so it is loaded on first use.

Used by ctxscope's own tests and usable by anyone testing a client against a fake model backend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes
from ctxscope.proxy.responses import (
    compaction,
    custom_tool_call,
    encode_sse,
    encode_stream,
    function_call,
    reasoning,
    response_stream,
    text_message,
    usage,
)
from ctxscope.proxy.testing.capture import CaptureSession, capture_proxy
from ctxscope.proxy.testing.upstream import (
    CloseReply,
    FakeUpstream,
    Gate,
    JsonReply,
    RawReply,
    RecordedRequest,
    Reply,
    SseReply,
    StallReply,
)

if TYPE_CHECKING:
    from ctxscope.proxy.testing.ws_upstream import WsRequest, WsUpstream, last_user_text

__all__ = [
    "CaptureSession",
    "capture_proxy",
    "CloseReply",
    "FakeUpstream",
    "Gate",
    "JsonReply",
    "RawReply",
    "RecordedRequest",
    "Reply",
    "SseReply",
    "StallReply",
    "WsRequest",
    "WsUpstream",
    "compaction",
    "custom_tool_call",
    "encode_sse",
    "encode_stream",
    "function_call",
    "reasoning",
    "response_stream",
    "last_user_text",
    "text_message",
    "usage",
]

# Only the websockets-backed names load lazily; everything else above is imported at once.
_WHERE = {name: ".ws_upstream" for name in ("WsRequest", "WsUpstream", "last_user_text")}
__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

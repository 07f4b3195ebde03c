"""Test helpers shipped with the package: a local Responses-like upstream and SSE stream builders.

The builders and encoders are `proxy.responses`'s, re-exported here for tests.

Used by ctxscope's own tests and usable by anyone testing a client against a fake model backend.
"""

from __future__ import annotations

from proxy.responses import (
    custom_tool_call,
    encode_sse,
    encode_stream,
    function_call,
    reasoning,
    response_stream,
    text_message,
    usage,
)
from proxy.testing.capture import CaptureSession, capture_proxy
from proxy.testing.upstream import (
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
    "custom_tool_call",
    "encode_sse",
    "encode_stream",
    "function_call",
    "reasoning",
    "response_stream",
    "text_message",
    "usage",
]

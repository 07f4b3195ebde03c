"""The Responses stream toolkit: every piece of ctxscope that reads, writes or folds a Responses stream.

    sse        SseParser (bytes → events, or frames with their wire framing), encode_frame / encode_sse
    fold       accumulate: the one pure fold of stream events into the response object
    builders   output-item and whole-stream event builders with an injectable id factory
    threads    thread_hint: the explicit conversation id of a request

Used by the recorder (tap and fold), the replayer (encoding, script cassettes), the harness (typed
stream), the inspector (thread hints), `ctxscope.proxy.testing` and the benchmarks. Pure: no I/O, no mitmproxy.
"""

from __future__ import annotations

from ctxscope.proxy.responses.builders import (
    IdFactory,
    compaction,
    custom_tool_call,
    function_call,
    reasoning,
    response_envelope,
    response_stream,
    sequential_ids,
    split_text,
    text_message,
    usage,
)
from ctxscope.proxy.responses.fold import accumulate, empty_snapshot, fold_events, fold_sse_bytes
from ctxscope.proxy.responses.sse import (
    SseFrame,
    SseParser,
    encode_event,
    encode_frame,
    encode_sse,
    encode_stream,
    plain_wire,
    wire_has_data,
    wire_terminated,
)
from ctxscope.proxy.responses.threads import THREAD_HEADERS, thread_hint

__all__ = [
    "THREAD_HEADERS",
    "IdFactory",
    "SseFrame",
    "SseParser",
    "accumulate",
    "compaction",
    "custom_tool_call",
    "empty_snapshot",
    "encode_event",
    "encode_frame",
    "encode_sse",
    "encode_stream",
    "fold_events",
    "fold_sse_bytes",
    "function_call",
    "plain_wire",
    "reasoning",
    "response_envelope",
    "response_stream",
    "sequential_ids",
    "split_text",
    "text_message",
    "thread_hint",
    "usage",
    "wire_has_data",
    "wire_terminated",
]

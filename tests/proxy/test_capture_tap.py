"""The stream tap: chunks go out unchanged; events are decoded and parsed on the side."""

from __future__ import annotations

import gzip
import json
import time
import zlib
from collections.abc import Callable

import brotli
import pytest
import zstandard

from ctxscope.proxy import stream_tap
from ctxscope.proxy.endpoints import classify_endpoint
from ctxscope.proxy.flow_fields import classify_error
from ctxscope.proxy.live_log import format_line
from ctxscope.proxy.model import Exchange, TransportError
from ctxscope.proxy.stream_tap import BodyTap, StreamTap
from ctxscope.proxy.testing import encode_stream, response_stream, text_message

STREAM = encode_stream(response_stream(text_message("tapped", chunks=3)))
N_EVENTS = STREAM.count(b"\n\n")


def _zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("", lambda b: b),
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("br", brotli.compress),
        ("zstd", _zstd),
    ],
)
def test_chunks_pass_unchanged_and_events_are_parsed(
    encoding: str, compress: Callable[[bytes], bytes]
) -> None:
    wire = compress(STREAM)
    tap = StreamTap(time.monotonic(), "text/event-stream; charset=utf-8", encoding)
    out = b""
    for i in range(0, len(wire), 7):
        out += tap(wire[i : i + 7])
    assert tap(b"") == b""
    assert out == wire
    assert len(tap.events) == N_EVENTS
    assert json.loads(tap.events[-1].data)["type"] == "response.completed"
    assert tap.size == len(wire)


def test_undecodable_stream_still_passes_and_is_parsed_after_the_fact() -> None:
    tap = StreamTap(time.monotonic(), "text/event-stream", "gzip")
    garbage = b"this is not gzip at all"
    assert tap(garbage) == garbage
    assert tap(b"") == b""
    assert tap.events == [] and tap.body() == garbage  # nothing parseable; the raw bytes are kept
    unknown = StreamTap(time.monotonic(), "text/event-stream", "x-custom")
    assert unknown(STREAM) == STREAM
    unknown(b"")
    # An encoding the tap cannot decode: the kept bytes are parsed at the end, all events stamped then.
    assert len(unknown.events) == N_EVENTS
    assert len({e.t_ms for e in unknown.events}) == 1


def test_non_sse_body_is_kept_and_decoded() -> None:
    body = json.dumps({"data": [1, 2, 3]}).encode()
    tap = StreamTap(time.monotonic(), "application/json", "gzip")
    tap(gzip.compress(body))
    tap(b"")
    assert tap.events == [] and tap.body() == body


@pytest.mark.parametrize(
    ("url", "headers", "kind"),
    [
        ("https://api.openai.com/v1/responses", None, "responses"),
        ("/backend-api/codex/responses?x=1", None, "responses"),
        ("/v1/responses/compact", None, "responses/compact"),
        ("/v1/models", None, "models"),
        ("/v1/models/gpt-5", None, "models"),
        ("/v1/responses/resp_123", None, "other"),
        ("/", None, "other"),
        ("/v1/responses", {"Upgrade": "websocket"}, "websocket"),
    ],
)
def test_endpoint_classification(url: str, headers: dict[str, str] | None, kind: str) -> None:
    assert classify_endpoint(url, headers) == kind


def test_live_line_for_failures() -> None:
    ex = Exchange(
        id=4,
        started_at=0,
        method="POST",
        url="http://x/v1/responses",
        endpoint="responses",
        request_body={"model": "gpt-5"},
        response={"status": "failed", "error": {"code": "context_length_exceeded"}},
        status=200,
        duration_ms=1500,
        error=TransportError(kind="upstream_reset", message="Server disconnected."),
    )
    assert format_line(ex) == (
        "exchange 4  POST  /v1/responses  200  gpt-5  1.50 s  response failed (context_length_exceeded)"
        "  error: upstream_reset: Server disconnected."
    )


@pytest.mark.parametrize(
    ("message", "got_response", "kind"),
    [
        ("[Errno 111] Connect call failed ('127.0.0.1', 9)", False, "upstream_unreachable"),
        ("[Errno -2] Name or service not known", False, "upstream_unreachable"),
        ("server closed connection", False, "upstream_reset"),
        (
            "HTTP/1 protocol error: peer closed connection without sending complete message body",
            True,
            "upstream_reset",
        ),
        ("Client disconnected.", True, "client_abort"),
        ("Connection timed out", False, "timeout"),
        ("something else", True, "other"),
    ],
)
def test_transport_error_classification(message: str, got_response: bool, kind: str) -> None:
    assert classify_error(message, got_response) == kind


def test_a_request_cut_short_by_the_client_is_a_client_abort() -> None:
    message = "HTTP/1 protocol error: peer closed connection without sending complete message body"
    assert classify_error(message, False, request_complete=False) == "client_abort"
    assert classify_error(message, False, request_complete=True) == "upstream_reset"  # the response's body
    assert classify_error(message, True, request_complete=False) == "upstream_reset"


def test_the_body_tap_relays_chunks_unchanged_and_keeps_a_copy() -> None:
    tap = BodyTap()
    chunks = [b'{"model": ', b'"m", "input"', b': "x"}']
    assert [tap(c) for c in chunks] == chunks
    assert not tap.finished
    assert tap(b"") == b"" and tap.finished
    assert tap.body() == b"".join(chunks) and tap.size == len(tap.body()) and tap.chunks == 3
    assert not tap.truncated


def test_the_body_tap_counts_without_keeping_and_stops_keeping_past_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = BodyTap(keep=False)
    counting(b"a" * 100)
    assert counting.size == 100 and counting.body() == b""
    monkeypatch.setattr(stream_tap, "MAX_KEPT_BODY", 10)
    capped = BodyTap()
    for chunk in (b"12345", b"67890", b"abcde"):
        assert capped(chunk) == chunk  # relayed whole even when no longer kept
    assert capped.truncated and capped.size == 15 and capped.body() == b"1234567890"


def test_the_relay_only_keeps_timed_chunks_and_events_take_their_chunks_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # The relay's own work per chunk is an append: no decoding, no parsing, no event object (about
    # 50 µs a short stream on the proxy's loop). Parsed afterwards, from the kept chunks, each event
    # is stamped with the arrival of the chunk that completed it, as if parsed on arrival.
    made: list[object] = []
    real = stream_tap.SseEvent
    monkeypatch.setattr(stream_tap, "SseEvent", lambda **kw: made.append(kw) or real(**kw))
    blocks = [block + b"\n\n" for block in STREAM.split(b"\n\n") if block]
    tap = StreamTap(time.monotonic(), "text/event-stream", "")
    half = len(blocks) // 2
    cut = len(b"".join(blocks[:half])) + 3  # the second chunk completes the block the first began
    first, second = STREAM[:cut], STREAM[cut:]
    assert tap(first) == first
    time.sleep(0.05)
    assert tap(second) == second
    tap(b"")
    assert made == []  # nothing parsed while relaying
    kept = tap.kept()
    events = kept.events()
    assert len(events) == len(blocks) == N_EVENTS and len(made) == N_EVENTS
    times = [e.t_ms for e in events]
    assert len(set(times[:half])) == 1 and len(set(times[half:])) == 1 and times[half] - times[0] >= 50
    assert [e.model_dump() for e in events] == [e.model_dump() for e in tap.events]
    assert kept.body() == STREAM and tap.body() == STREAM

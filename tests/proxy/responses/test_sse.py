"""The SSE parser and encoder: events under any chunking, and frames that replay byte for byte."""

from __future__ import annotations

import json

import pytest

from ctxscope.proxy.responses import (
    SseFrame,
    SseParser,
    encode_event,
    encode_frame,
    encode_sse,
    encode_stream,
    function_call,
    plain_wire,
    response_stream,
    text_message,
    wire_has_data,
)

# Every framing a server may use: comments (alone and inside an event), `id:`/`retry:`, an `event:`
# block without data, `data:x` without the space, multi-line data, CRLF and bare CR endings, extra
# blank lines, a split multi-byte character, and a last event cut before its blank line.
ODD_STREAM = (
    b": OPENROUTER PROCESSING\n\n"
    b'retry: 3000\nid: 7\nevent: response.created\ndata:{"type":"response.created"}\n\n'
    b": keep-alive\r\n\r\n"
    b"event: ping\n\n"
    b'event: response.output_text.delta\r\ndata: {"delta":"h\xc3\xa9"}\r\n\r\n'
    b"data: line one\rdata:  two spaces\r\r\n"
    b"\n"
    b'event: response.completed\ndata: {"type":"response.comp'
)


def _frames(data: bytes, step: int) -> list[SseFrame]:
    parser = SseParser()
    frames: list[SseFrame] = []
    for i in range(0, len(data), step):
        frames += parser.feed_frames(data[i : i + step])
    return frames + parser.flush_frames()


@pytest.mark.parametrize("step", [1, 2, 3, 7, 64, 10_000])
def test_sse_parser_any_chunking_gives_the_same_events(step: int) -> None:
    events = response_stream(text_message("ünïcode ✓", chunks=4), function_call("f", {"a": 1}))
    data = encode_stream(events).replace(b"\n", b"\r\n") + b": keep-alive\r\n\r\n"
    parser = SseParser()
    pairs: list[tuple[str | None, str]] = []
    for i in range(0, len(data), step):
        pairs += parser.feed(data[i : i + step])
    pairs += parser.flush()
    assert [name for name, _ in pairs] == [e["type"] for e in events]
    assert [json.loads(d) for _, d in pairs] == events


def test_sse_parser_multiline_data_comments_and_unterminated_tail() -> None:
    parser = SseParser()
    assert parser.feed(b": comment\n\ndata: a\ndata: b\n\nevent: x\ndata:nospace\n\n") == [
        (None, "a\nb"),
        ("x", "nospace"),
    ]
    assert parser.feed(b"event: last\ndata: tail") == []
    assert parser.flush() == [("last", "tail")]
    assert parser.flush() == []


@pytest.mark.parametrize("step", [1, 2, 3, 7, 64, 10_000])
def test_frames_put_back_together_give_the_exact_bytes(step: int) -> None:
    frames = _frames(ODD_STREAM, step)
    assert b"".join(encode_frame(f.event, f.data, f.wire) for f in frames) == ODD_STREAM
    assert frames == _frames(ODD_STREAM, 10_000)  # the same frames under any chunking


def test_frames_say_what_they_dispatch() -> None:
    frames = _frames(ODD_STREAM, 10_000)
    dispatched = [(f.event, f.data) for f in frames if f.has_data]
    assert dispatched == [
        ("response.created", '{"type":"response.created"}'),
        ("response.output_text.delta", '{"delta":"hé"}'),
        (None, "line one\n two spaces"),
        ("response.completed", '{"type":"response.comp'),
    ]
    assert [f.wire for f in frames if not f.has_data] == [
        ": OPENROUTER PROCESSING\n\n",
        ": keep-alive\r\n\r\n",
        "event: ping\n\n",
        "\n",
    ]
    assert [f.terminated for f in frames] == [True] * 7 + [False]
    assert frames[1].wire == "retry: 3000\nid: 7\nevent: response.created\ndata:\n\n"
    assert not any(f.plain for f in frames)
    assert [wire_has_data(f.wire) for f in frames] == [f.has_data for f in frames]


def test_plain_frames_need_no_wire() -> None:
    event = {"type": "response.in_progress", "sequence_number": 1}
    [frame] = _frames(encode_sse(event), 10_000)
    assert frame.plain and frame.wire == plain_wire(frame.event, frame.data)
    assert encode_event(frame.event, frame.data) == encode_sse(event)
    assert encode_frame(None, "a\nb") == b"data: a\ndata: b\n\n"


def test_encode_sse_compact_is_the_api_form() -> None:
    event = {"type": "response.created", "n": [1, 2]}
    assert (
        encode_sse(event, compact=True)
        == b'event: response.created\ndata: {"type":"response.created","n":[1,2]}\n\n'
    )
    assert (
        encode_sse(event) == b'event: response.created\ndata: {"type": "response.created", "n": [1, 2]}\n\n'
    )


def test_a_stream_ending_in_a_bare_cr_blank_line_completes_its_last_event() -> None:
    data = b"data: one\r\rdata: two\r\r"
    parser = SseParser()
    frames = parser.feed_frames(data) + parser.flush_frames()
    assert [(f.data, f.terminated) for f in frames] == [("one", True), ("two", True)]
    assert b"".join(encode_frame(f.event, f.data, f.wire) for f in frames) == data

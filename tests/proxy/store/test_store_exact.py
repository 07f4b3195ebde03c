"""Stored SSE events give back the bytes received: each occurrence's key order, and the framing."""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from ctxscope.proxy.model import SseEvent
from ctxscope.proxy.store import RecordingWriter, read_recording
from ctxscope.proxy.store.codec import apply_order, key_order
from tests.proxy.store.test_store import make_exchange

ITEM = {
    "id": "msg_1",
    "type": "message",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "annotations": [], "text": "the same item, twice over " * 4}],
}


def _reordered(value: object) -> object:
    """The same JSON with every object's keys reversed."""
    if isinstance(value, dict):
        return {k: _reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(v) for v in value]
    return value


def _event(t_ms: float, kind: str, **fields: object) -> SseEvent:
    return SseEvent(t_ms=t_ms, event=kind, data=orjson.dumps({"type": kind, **fields}).decode())


def test_each_occurrence_keeps_its_own_key_order(tmp_path: Path) -> None:
    other_order = _reordered(ITEM)
    assert other_order == ITEM and json.dumps(other_order) != json.dumps(ITEM)
    first = [_event(1.0, "response.output_item.done", item=ITEM)]
    # The next turn sends the item back as input (first order stored), and the backend echoes it in
    # another order: content addressing shares the blob, the event still replays its own bytes.
    second = [
        _event(1.0, "response.output_item.done", item=other_order),
        _event(2.0, "response.completed", response={"id": "r", "output": [other_order, ITEM]}),
    ]
    path = tmp_path / "rec.jsonl"
    with RecordingWriter(path) as writer:
        writer.write(make_exchange(0, [], sse=first))
        writer.write(make_exchange(1, [ITEM], sse=second))
    exchanges = read_recording(path).exchanges
    assert [e.data for e in exchanges[0].sse] == [e.data for e in first]
    assert [e.data for e in exchanges[1].sse] == [e.data for e in second]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    blobs = [line for line in lines if line["kind"] == "blob" and line["v"] == ITEM]
    assert len(blobs) == 1  # still stored once
    stored = [line for line in lines if line["kind"] == "exchange"]
    assert "$order" not in json.dumps(stored[0]) and "$order" in json.dumps(stored[1])


def test_key_order_round_trip_of_nested_values() -> None:
    value = {"b": [1, {"y": 1, "x": {"q": [], "p": 2}}], "a": {"d": 1, "c": 2}, "e": "s"}
    canonical = json.loads(json.dumps(value, sort_keys=True))
    assert json.dumps(apply_order(canonical, key_order(value))) == json.dumps(value)
    assert key_order([1, "x"]) is None and apply_order(canonical, None) == canonical


def test_framing_is_stored_and_redacted_like_data(tmp_path: Path) -> None:
    secret = "sk-proj-PLANTEDsecretKEY0123456789abcdef"
    events = [
        SseEvent(t_ms=0.5, data="", wire=f": processing for {secret}\n\n"),
        SseEvent(
            t_ms=1.0,
            event="response.created",
            data='{"type":"response.created"}',
            wire="event: response.created\r\ndata:\r\n\r\n",
        ),
        SseEvent(
            t_ms=2.0,
            event="response.completed",
            data='{"type":"response.comp',
            wire="event: response.completed\ndata: ",
        ),
    ]
    path = tmp_path / "rec.jsonl"
    with RecordingWriter(path) as writer:
        writer.write(make_exchange(0, [], sse=events))
    assert secret not in path.read_text()
    (exchange,) = read_recording(path).exchanges
    got = b"".join(e.encode() for e in exchange.sse)
    assert got.startswith(b": processing for <redacted:api_key:")
    assert got.endswith(
        b'event: response.created\r\ndata:{"type":"response.created"}\r\n\r\n'
        b'event: response.completed\ndata: {"type":"response.comp'
    )
    assert [e.dispatched for e in exchange.sse] == [False, True, False]

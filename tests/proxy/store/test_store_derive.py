"""Format 1.2: SSE events derived from the stored response read back byte for byte, or stay literal.

Streams are built with the shared Responses builders (the Codex wire shape), serialised the way an
upstream would (compact as the API sends, spaced with or without ASCII escapes), written by the real
`RecordingWriter` and read by `read_recording`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope.proxy.model import SseEvent
from ctxscope.proxy.responses import (
    fold_events,
    function_call,
    reasoning,
    response_stream,
    sequential_ids,
    text_message,
)
from ctxscope.proxy.store import FORMAT_VERSION, RecordingWriter, read_recording
from ctxscope.proxy.store.derive import derive_stream
from ctxscope.proxy.store.rebuild import rebuild_stream
from tests.proxy.store.test_store import SECRET_KEY, _msg, make_exchange

INSTRUCTIONS = "You are a coding agent. Follow the repository's rules. " * 40
TOOLS = [{"type": "function", "name": f"tool_{i}", "description": "runs a thing " * 20} for i in range(6)]
# odd places: inside words, next to escapes (\n, \"), around non-ASCII (é, an emoji, CJK)
TEXT = 'Voilà: "quoted"\nline two\twith tab, café, naïve 😀 and 中文 — done.\\end'
PIECES = [
    "Voi",
    "là",
    ': "',
    "quoted",
    '"\n',
    "line two\t",
    "with tab, caf",
    "é",
    ", naïve ",
    "😀",
    " and 中",
    "文 — done.\\",
    "end",
]

DUMPS = {
    "compact": lambda e: json.dumps(e, separators=(",", ":"), ensure_ascii=False),
    "spaced-ascii": lambda e: json.dumps(e),  # Python's defaults: `\u00e9` for é
    "spaced": lambda e: json.dumps(e, ensure_ascii=False),
    "indent2": lambda e: json.dumps(e, indent=2, ensure_ascii=False),  # multi-line data; runs one by one
}


def _message(text: str, pieces: list[str], **kw: Any) -> list[dict[str, Any]]:
    """`text_message` with its deltas cut at `pieces` (and an `obfuscation` field, as the API adds)."""
    assert "".join(pieces) == text
    events = text_message(text, **kw)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    at = events.index(deltas[0])
    cut = [{**deltas[0], "delta": piece, "obfuscation": f"x{n}"} for n, piece in enumerate(pieces)]
    return events[:at] + cut + events[at + len(deltas) :]


def codex_events(text: str = TEXT, pieces: list[str] = PIECES, turn: int = 0) -> list[dict[str, Any]]:
    ids = sequential_ids()
    events = response_stream(
        reasoning(['Planning the "change": é\n', "Checking files 😀."], chunks=5, ids=ids),
        _message(text, pieces, ids=ids),
        function_call("exec_command", {"cmd": ["rg", "-n", 'naïve "x"']}, chunks=3, ids=ids),
        response_id=f"resp_{turn}",
        created_at=1_700_000_000 + turn,
        ids=ids,
    )
    for event in events:  # the real API echoes instructions and tools in every response object
        if isinstance(event.get("response"), dict):
            event["response"] = {**event["response"], "instructions": INSTRUCTIONS, "tools": TOOLS}
    return events


def as_exchange(turn: int, events: list[dict[str, Any]], layout: str, **extra: Any) -> Any:
    sse = [SseEvent(t_ms=1.0 + n, event=str(e["type"]), data=DUMPS[layout](e)) for n, e in enumerate(events)]
    fields: dict[str, Any] = {"sse": sse, "response": fold_events(events), **extra}
    return make_exchange(turn, [_msg("user", f"turn {turn}")], **fields)


def stored_stream(path: Path, exchange_id: int) -> dict[str, Any]:
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    blobs = {line["h"]: line["v"] for line in lines if line["kind"] == "blob"}
    (line,) = [x for x in lines if x["kind"] == "exchange" and x["id"] == exchange_id]
    sse = line["sse"]
    if isinstance(sse, list):
        return {"events": sse}
    return blobs[sse["$stream"]] if "$stream" in sse else sse


def literal_count(stream: dict[str, Any]) -> int:
    """Events kept as their text (format 1.1's `json` form with stored parts does not count)."""
    return sum(1 for form in stream["events"] if "data" in form)


@pytest.mark.parametrize("layout", sorted(DUMPS))
def test_derived_events_read_back_byte_for_byte(tmp_path: Path, layout: str) -> None:
    turns = [codex_events(turn=t) for t in range(3)]
    path = tmp_path / "rec.jsonl"
    with RecordingWriter(path) as writer:
        for turn, events in enumerate(turns):
            writer.write(as_exchange(turn, events, layout))
    recording = read_recording(path)
    assert recording.header.version == FORMAT_VERSION and not recording.warnings
    for exchange, events in zip(recording.exchanges, turns, strict=True):
        sent = as_exchange(0, events, layout).sse
        assert [e.encode() for e in exchange.sse] == [e.encode() for e in sent]
        assert [(e.event, e.t_ms) for e in exchange.sse] == [(e.event, e.t_ms) for e in sent]
        stream = stored_stream(path, exchange.id)
        assert stream["layout"] == layout
        assert literal_count(stream) == 0  # text, parts, items, response objects: all derived or stored
    if layout == "spaced-ascii":
        assert any('"delta": "\\u00e9"' in e.data for e in recording.exchanges[0].sse)  # as sent


def test_derived_file_is_smaller_than_format_1_1(tmp_path: Path) -> None:
    sizes = {}
    for version in ("1.1", "1.2"):
        path = tmp_path / f"v{version}.jsonl"
        with RecordingWriter(path, version=version) as writer:
            for turn in range(5):
                writer.write(as_exchange(turn, codex_events(turn=turn), "spaced-ascii"))
        sizes[version] = path.stat().st_size
        assert read_recording(path).header.version == version
    # 1.1 keeps spaced JSON as text: instructions and tools twice (created, completed) per turn
    assert sizes["1.2"] * 4 < sizes["1.1"]


def test_redacted_streams_derive_from_the_redacted_response(tmp_path: Path) -> None:
    text = f"the key is {SECRET_KEY} — keep it safe"
    cut = len("the key is sk-pr")
    pieces = [text[:cut], text[cut : cut + 9], text[cut + 9 :]]  # the secret spans three deltas
    events = codex_events(text=text, pieces=pieces)
    paths = {}
    for version in ("1.1", "1.2"):
        paths[version] = tmp_path / f"v{version}.jsonl"
        with RecordingWriter(paths[version], version=version) as writer:
            writer.write(as_exchange(0, events, "compact"))
    for path in paths.values():
        assert SECRET_KEY not in path.read_text("utf-8")
        assert SECRET_KEY[3:12] not in path.read_text("utf-8")
    old, new = (read_recording(p).exchanges[0] for p in paths.values())
    assert [e.encode() for e in new.sse] == [e.encode() for e in old.sse]  # the same redacted bytes
    deltas = [json.loads(e.data)["delta"] for e in new.sse if e.event == "response.output_text.delta"]
    assert "".join(deltas) == "the key is <redacted:api_key:1> — keep it safe"
    assert literal_count(stored_stream(paths["1.2"], 0)) == 0


def test_events_the_response_does_not_reproduce_stay_literal(tmp_path: Path) -> None:
    events = codex_events()
    response = fold_events(events)
    assert response is not None
    response = {**response, "usage": float("nan")}  # orjson writes null, json.dumps NaN: no match
    sse = [SseEvent(t_ms=1.0, event=str(e["type"]), data=json.dumps(e)) for e in events]
    # one event with raw é among escaped ones, one with a number no layout writes back (1E2)
    sse.insert(3, SseEvent(t_ms=1.0, event="response.note", data='{"type": "response.note", "t": "é"}'))
    sse.insert(4, SseEvent(t_ms=1.0, event="response.note", data='{"type": "response.note", "n": 1E2}'))
    path = tmp_path / "rec.jsonl"
    with RecordingWriter(path) as writer:
        writer.write(make_exchange(0, [], sse=sse, response=response))
        writer.write(make_exchange(1, [], sse=sse))  # no response at all: nothing to derive from
    for exchange in read_recording(path).exchanges:
        assert [e.encode() for e in exchange.sse] == [e.encode() for e in sse]
    stream = stored_stream(path, 0)
    assert [form["data"] for form in stream["events"][3:5]] == [sse[3].data, sse[4].data]
    # the terminal event's response would render `NaN` for the `null` sent: verification keeps it literal
    assert stream["events"][-1].get("data") == sse[-1].data


def test_derive_stream_refuses_what_does_not_rebuild_exactly() -> None:
    event = {"type": "response.completed", "response": {"id": "r", "usage": None}}
    data = json.dumps(event)
    # `null` in the event, NaN in the response: equal as orjson sees them, not as `json.dumps` writes
    assert (
        derive_stream([{"event": "response.completed", "data": data}], {"id": "r", "usage": float("nan")})
        is None
    )
    stored = derive_stream([{"event": "response.completed", "data": data}], {"id": "r", "usage": None})
    assert stored is not None and stored["events"][0]["d"]["response"]["$r"] == []


def test_request_bodies_store_only_what_changed_since_their_base(tmp_path: Path) -> None:
    items: list[dict[str, Any]] = []
    bodies = []
    for turn in range(4):
        items = [*items, _msg("user", f"question {turn}")]
        body = make_exchange(turn, items).request_body
        body["reasoning"] = {"effort": "high" if turn == 2 else "medium"}
        if turn == 3:
            body["include"] = ["reasoning.encrypted_content"]  # a key more: written in full
        bodies.append(body)
    path = tmp_path / "rec.jsonl"
    with RecordingWriter(path) as writer:
        for turn, body in enumerate(bodies):
            writer.write(make_exchange(turn, body["input"], request_body=body))
    read = [e.request_body for e in read_recording(path).exchanges]
    assert [json.dumps(b) for b in read] == [json.dumps(b) for b in bodies]  # values and key order
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    stored = [line["request_body"] for line in lines if line["kind"] == "exchange"]
    assert "$as" not in stored[0] and "$as" not in stored[3]
    assert sorted(stored[1]) == ["$as", "input"] and stored[1]["$as"] == 0
    assert sorted(stored[2]) == ["$as", "input", "reasoning"]


def test_same_events_tell_apart_values_python_calls_equal() -> None:
    """1, 1.0 and true are equal in Python, not on the wire; {"a","b"} and {"b","a"} neither."""
    values: list[Any] = [1, True, 1.0, {"a": 1, "b": 2}, {"b": 2, "a": 1}, [1], [True]]
    events = [{"type": "response.x", "sequence_number": n, "v": v} for n, v in enumerate(values)]
    events.append({"type": "response.x", "sequence_number": True, "v": 1})  # not a count: literal value
    datas = [{"event": "response.x", "data": json.dumps(e, separators=(",", ":"))} for e in events]
    stored = derive_stream(datas, {"id": "r"})
    assert stored is not None and all("same" in form for form in stored["events"][1:])
    assert [e["data"] for e in rebuild_stream(stored, {"id": "r"})] == [d["data"] for d in datas]


def test_a_spaced_stream_derives_in_its_own_layout_when_a_redacted_event_was_rewritten(tmp_path: Path) -> None:
    """The redactor re-serialises (compactly) an event it redacted something in: here the response
    objects, whose echoed instructions hold a key. The other events keep their spaced JSON and are
    still derived in it, not in the layout of the stream's first event."""
    events = codex_events()
    for event in events:
        if isinstance(event.get("response"), dict):
            event["response"]["instructions"] = f"{INSTRUCTIONS} deploy with {SECRET_KEY}"
    path = tmp_path / "rec.jsonl"
    with RecordingWriter(path) as writer:
        writer.write(as_exchange(0, events, "spaced-ascii"))
    assert SECRET_KEY not in path.read_text("utf-8")
    (exchange,) = read_recording(path).exchanges
    rewritten = [e for e in exchange.sse if "<redacted:" in e.data]
    assert rewritten and all('":"' in e.data for e in rewritten)  # compact now
    kept = [e for e in exchange.sse if "<redacted:" not in e.data]
    sent = {e.data for e in as_exchange(0, events, "spaced-ascii").sse}
    assert all(e.data in sent for e in kept)  # byte for byte as received
    stream = stored_stream(path, 0)
    assert stream["layout"] == "spaced-ascii"
    # the rewritten ones in 1.1's compact form with stored parts, every other event derived: no text
    assert sum(1 for form in stream["events"] if "json" in form) == len(rewritten)
    assert literal_count(stream) == 0

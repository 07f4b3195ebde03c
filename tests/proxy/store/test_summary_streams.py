"""`ctxscope info` on streams that end badly: nested `error` events and streams without a terminal event."""

from __future__ import annotations

import json
from pathlib import Path

from ctxscope.proxy.model import SseEvent
from ctxscope.proxy.responses import fold_events
from ctxscope.proxy.store import RecordingWriter, read_recording
from ctxscope.proxy.store.summary import summarise
from tests.proxy.store.test_store import make_exchange


def _sse(*events: dict[str, object]) -> list[SseEvent]:
    return [SseEvent(t_ms=float(i), event=str(e["type"]), data=json.dumps(e)) for i, e in enumerate(events)]


def test_nested_error_event_code_and_message_and_a_stream_without_terminal_event(tmp_path: Path) -> None:
    created = {"type": "response.created", "response": {"id": "r1", "status": "in_progress", "output": []}}
    error = {
        "type": "error",
        "sequence_number": 1,
        "error": {"code": "rate_limit_exceeded", "message": "slow down"},
    }
    delta = {"type": "response.output_text.delta", "item_id": "m", "output_index": 0, "delta": "x"}
    errored, unfinished = _sse(created, error), _sse(created, delta)
    path = tmp_path / "rec.jsonl"
    with RecordingWriter(path) as writer:
        for turn, sse in enumerate((errored, unfinished)):
            folded = fold_events(json.loads(e.data) for e in sse)
            writer.write(make_exchange(turn, [], sse=sse, response=folded))
    errors = summarise(read_recording(path)).errors
    assert len(errors) == 2
    assert errors[0].endswith("response failed (rate_limit_exceeded: slow down)")
    assert errors[1].endswith("response incomplete (the stream ended without a terminal event)")

"""A Responses stream built from a finished response: for answers recorded with no stream bytes.

An exchange imported from Codex's own trace (docs/codex-trace.md) holds the response's output items
and usage but not the events that carried them. A replay still has to send a stream a client accepts:
`response.created`, `response.in_progress`, each item's `output_item.added` and `output_item.done`, then
`response.completed` with the whole response. Clients (the openai SDKs, Codex) build their result from
the `.done` items and the terminal event, so no deltas are made up.
"""

from __future__ import annotations

import json
from typing import Any

from ..model import SseEvent
from .builders import response_envelope
from .vocabulary import TerminalEvent

__all__ = ["stream_from_response"]


def stream_from_response(response: dict[str, Any]) -> list[SseEvent]:
    """The events of a stream ending in `response` (its `id`, `model`, `output`, `usage`)."""
    rid = str(response.get("id") or "resp_synthesised")
    model = str(response.get("model") or "")
    envelope = response_envelope(rid, model, "in_progress", created_at=0)
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": envelope},
        {"type": "response.in_progress", "response": envelope},
    ]
    output = [item for item in response.get("output") or [] if isinstance(item, dict)]
    for index, item in enumerate(output):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    final = {**response_envelope(rid, model, "completed", created_at=0), "output": output}
    final["usage"] = response.get("usage")
    events.append({"type": TerminalEvent.COMPLETED.value, "response": final})
    return [
        SseEvent(t_ms=0.0, event=event["type"], data=json.dumps({**event, "sequence_number": number}))
        for number, event in enumerate(events)
    ]

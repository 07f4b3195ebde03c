"""Rebuild a Responses object from its SSE events: one pure fold, `accumulate(snapshot, event)`.

Serves the proxy (reconstruct `Exchange.response`), the harness (live turn state, wrapped in typed
models) and tests (recorded SSE). Like openai-python's `accumulate_event`, but over plain dicts and
without mutating its input: each call copies only the path it changes (snapshot → output list →
item → part), so a long stream stays linear-ish and earlier snapshots stay valid.

The snapshot is `{"id", "model", "status", "output": [items], "usage", "error"}` plus any other
fields the server sent on `response.*` envelopes. Events are keyed on their JSON `type` (Codex
ignores the SSE `event:` name too); unknown types are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from ctxscope.proxy.responses.sse import SseParser
from ctxscope.proxy.responses.vocabulary import ERROR_EVENT, TERMINAL_EVENT_STATUS

__all__ = ["accumulate", "empty_snapshot", "fold_events", "fold_sse_bytes"]

ItemHandler = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
"""Applies one item-level event to a (copied) output item and returns it."""

_ENVELOPES = {"response.created", "response.in_progress", "response.queued", *TERMINAL_EVENT_STATUS}


def empty_snapshot() -> dict[str, Any]:
    """The snapshot before any event."""
    return {"id": None, "model": None, "status": None, "output": [], "usage": None, "error": None}


def accumulate(snapshot: dict[str, Any] | None, event: dict[str, Any]) -> dict[str, Any]:
    """Fold one parsed SSE event (the JSON `data` object) into a new snapshot; inputs are not mutated."""
    snap = empty_snapshot() if snapshot is None else snapshot
    kind = event.get("type")
    if not isinstance(kind, str):
        return snap
    if kind in _ENVELOPES:
        return _envelope(snap, kind, event)
    if kind == ERROR_EVENT:
        nested = event.get("error")  # `{"type": "error", "error": {"code", "message"}}` or flat
        error = (
            dict(nested)
            if isinstance(nested, dict)
            else {k: v for k, v in event.items() if k not in ("type", "sequence_number")}
        )
        return {**snap, "status": "failed", "error": error}
    if kind in ("response.output_item.added", "response.output_item.done"):
        item = event.get("item")
        if not isinstance(item, dict):
            return snap
        return _set_item(snap, event, item)
    handler = _ITEM_EVENTS.get(kind)
    if handler is None:
        return snap
    index = _find_item(snap, event)
    if index is None:
        return snap
    output = list(snap["output"])
    output[index] = handler(dict(output[index]), event)
    return {**snap, "output": output}


def fold_events(events: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """Fold a whole stream; None if it had no events."""
    snap: dict[str, Any] | None = None
    for event in events:
        snap = accumulate(snap, event)
    return snap


def fold_sse_bytes(data: bytes) -> dict[str, Any] | None:
    """Parse raw SSE bytes and fold every JSON event (non-JSON data lines are skipped)."""
    parser = SseParser()
    pairs = parser.feed(data) + parser.flush()
    events = []
    for _, payload in pairs:
        try:
            obj = json.loads(payload)
        except ValueError:
            continue
        if isinstance(obj, dict):
            events.append(obj)
    return fold_events(events)


def _envelope(snap: dict[str, Any], kind: str, event: dict[str, Any]) -> dict[str, Any]:
    response = event.get("response")
    new = dict(snap)
    if isinstance(response, dict):
        new.update(response)
        # The terminal envelope usually repeats the output; if a server sends it empty, keep what streamed.
        if not response.get("output") and snap.get("output"):
            new["output"] = snap["output"]
    if not isinstance(new.get("output"), list):
        new["output"] = []
    if kind in TERMINAL_EVENT_STATUS and not (isinstance(response, dict) and response.get("status")):
        new["status"] = TERMINAL_EVENT_STATUS[kind]
    return new


def _set_item(snap: dict[str, Any], event: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    output = list(snap["output"])
    index = event.get("output_index")
    if not isinstance(index, int) or index < 0:
        found = _find_item(snap, {"item_id": item.get("id")})
        index = found if found is not None else len(output)
    while len(output) <= index:
        output.append({})
    output[index] = dict(item)
    return {**snap, "output": output}


def _find_item(snap: dict[str, Any], event: dict[str, Any]) -> int | None:
    output = snap["output"]
    item_id = event.get("item_id")
    index = event.get("output_index")
    if isinstance(index, int) and 0 <= index < len(output):
        if item_id is None or output[index].get("id") in (None, item_id):
            return index
    if item_id is not None:
        for i, item in enumerate(output):
            if item.get("id") == item_id:
                return i
    return None


def _part(parts: Any, index: Any, default: dict[str, Any]) -> tuple[list[Any], int, dict[str, Any]]:
    """Copy `parts`, make sure `index` exists, and return (parts, index, copy of that part)."""
    new = list(parts) if isinstance(parts, list) else []
    i = index if isinstance(index, int) and index >= 0 else max(len(new) - 1, 0)
    while len(new) <= i:
        new.append(dict(default))
    return new, i, dict(new[i])


def _text_delta(field: str, part_type: str, container: str, index_key: str) -> ItemHandler:
    """Handler appending `delta` to `item[container][event[index_key]][field]`."""

    def apply(item: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        parts, i, part = _part(item.get(container), event.get(index_key), {"type": part_type, field: ""})
        part[field] = str(part.get(field) or "") + str(event.get("delta", ""))
        parts[i] = part
        item[container] = parts
        return item

    return apply


def _text_done(field: str, part_type: str, container: str, index_key: str, source: str) -> ItemHandler:
    """Handler setting the final text of a part from `event[source]`."""

    def apply(item: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        if source not in event:
            return item
        parts, i, part = _part(item.get(container), event.get(index_key), {"type": part_type, field: ""})
        part[field] = event[source]
        parts[i] = part
        item[container] = parts
        return item

    return apply


def _part_added(container: str, index_key: str) -> ItemHandler:
    def apply(item: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        part = event.get("part")
        if not isinstance(part, dict):
            return item
        parts, i, _ = _part(item.get(container), event.get(index_key), {})
        parts[i] = dict(part)
        item[container] = parts
        return item

    return apply


def _field_delta(field: str) -> ItemHandler:
    def apply(item: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        item[field] = str(item.get(field) or "") + str(event.get("delta", ""))
        return item

    return apply


def _field_done(field: str) -> ItemHandler:
    def apply(item: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        if field in event:
            item[field] = event[field]
        return item

    return apply


_ITEM_EVENTS: dict[str, ItemHandler] = {
    "response.content_part.added": _part_added("content", "content_index"),
    "response.content_part.done": _part_added("content", "content_index"),
    "response.output_text.delta": _text_delta("text", "output_text", "content", "content_index"),
    "response.output_text.done": _text_done("text", "output_text", "content", "content_index", "text"),
    "response.refusal.delta": _text_delta("refusal", "refusal", "content", "content_index"),
    "response.refusal.done": _text_done("refusal", "refusal", "content", "content_index", "refusal"),
    "response.function_call_arguments.delta": _field_delta("arguments"),
    "response.function_call_arguments.done": _field_done("arguments"),
    "response.custom_tool_call_input.delta": _field_delta("input"),
    "response.custom_tool_call_input.done": _field_done("input"),
    "response.reasoning_summary_part.added": _part_added("summary", "summary_index"),
    "response.reasoning_summary_part.done": _part_added("summary", "summary_index"),
    "response.reasoning_summary_text.delta": _text_delta("text", "summary_text", "summary", "summary_index"),
    "response.reasoning_summary_text.done": _text_done(
        "text", "summary_text", "summary", "summary_index", "text"
    ),
    "response.reasoning_text.delta": _text_delta("text", "reasoning_text", "content", "content_index"),
    "response.reasoning_text.done": _text_done("text", "reasoning_text", "content", "content_index", "text"),
}

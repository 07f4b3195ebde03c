"""Builders for Responses SSE streams in the Codex wire shape (synthetic, for tests and demos).

Each item builder returns the events of one output item (added → deltas → done);
`response_stream(*items)` numbers them, wraps them in `response.created` / `response.in_progress` and
ends with `response.completed` (carrying the finished items and `usage`) or `response.failed`.

    events = response_stream(reasoning("thinking"), text_message("hello"), usage=usage(10, 2))
    FakeUpstream().reply(SseReply(events))
"""

from __future__ import annotations

import itertools
import json
from typing import Any

_ids = itertools.count(1)


def _new_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):06d}"


def encode_sse(event: dict[str, Any]) -> bytes:
    """One event as `event: <type>\\ndata: <json>\\n\\n`."""
    return f"event: {event.get('type', 'message')}\ndata: {json.dumps(event)}\n\n".encode()


def encode_stream(events: list[dict[str, Any]]) -> bytes:
    """A whole stream as bytes."""
    return b"".join(encode_sse(e) for e in events)


def _split(text: str, chunks: int) -> list[str]:
    if chunks <= 1 or len(text) <= 1:
        return [text]
    size = max(1, -(-len(text) // chunks))
    return [text[i : i + size] for i in range(0, len(text), size)]


def usage(
    input_tokens: int = 10, output_tokens: int = 5, cached_tokens: int = 0, reasoning_tokens: int = 0
) -> dict[str, Any]:
    """A `usage` object as sent in `response.completed`."""
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached_tokens},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }


def text_message(text: str, chunks: int = 3, item_id: str | None = None) -> list[dict[str, Any]]:
    """An assistant message streamed as `chunks` `response.output_text.delta` events."""
    item_id = item_id or _new_id("msg")
    done_item = {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "item": {**done_item, "status": "in_progress", "content": []}},
        {
            "type": "response.content_part.added",
            "item_id": item_id,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ]
    for piece in _split(text, chunks):
        events.append(
            {"type": "response.output_text.delta", "item_id": item_id, "content_index": 0, "delta": piece}
        )
    events += [
        {"type": "response.output_text.done", "item_id": item_id, "content_index": 0, "text": text},
        {
            "type": "response.content_part.done",
            "item_id": item_id,
            "content_index": 0,
            "part": done_item["content"][0],
        },
        {"type": "response.output_item.done", "item": done_item},
    ]
    return events


def function_call(
    name: str, arguments: dict[str, Any] | str, call_id: str | None = None, chunks: int = 2
) -> list[dict[str, Any]]:
    """A `function_call` item whose JSON arguments stream as deltas."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    item_id = _new_id("fc")
    item = {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id or _new_id("call"),
        "name": name,
        "arguments": args,
        "status": "completed",
    }
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "item": {**item, "arguments": "", "status": "in_progress"}}
    ]
    for piece in _split(args, chunks):
        events.append({"type": "response.function_call_arguments.delta", "item_id": item_id, "delta": piece})
    events += [
        {"type": "response.function_call_arguments.done", "item_id": item_id, "arguments": args},
        {"type": "response.output_item.done", "item": item},
    ]
    return events


def custom_tool_call(
    name: str, input: str, call_id: str | None = None, chunks: int = 2
) -> list[dict[str, Any]]:
    """A freeform `custom_tool_call` item (e.g. apply_patch) whose input streams as deltas."""
    item_id = _new_id("ctc")
    item = {
        "type": "custom_tool_call",
        "id": item_id,
        "call_id": call_id or _new_id("call"),
        "name": name,
        "input": input,
        "status": "completed",
    }
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "item": {**item, "input": "", "status": "in_progress"}}
    ]
    for piece in _split(input, chunks):
        events.append({"type": "response.custom_tool_call_input.delta", "item_id": item_id, "delta": piece})
    events += [
        {"type": "response.custom_tool_call_input.done", "item_id": item_id, "input": input},
        {"type": "response.output_item.done", "item": item},
    ]
    return events


def reasoning(summary: str, encrypted_content: str = "enc-opaque", chunks: int = 2) -> list[dict[str, Any]]:
    """A `reasoning` item with one summary part streamed as deltas."""
    item_id = _new_id("rs")
    item = {
        "type": "reasoning",
        "id": item_id,
        "summary": [{"type": "summary_text", "text": summary}],
        "encrypted_content": encrypted_content,
    }
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "item": {**item, "summary": []}},
        {
            "type": "response.reasoning_summary_part.added",
            "item_id": item_id,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": ""},
        },
    ]
    for piece in _split(summary, chunks):
        events.append(
            {
                "type": "response.reasoning_summary_text.delta",
                "item_id": item_id,
                "summary_index": 0,
                "delta": piece,
            }
        )
    events += [
        {
            "type": "response.reasoning_summary_text.done",
            "item_id": item_id,
            "summary_index": 0,
            "text": summary,
        },
        {"type": "response.output_item.done", "item": item},
    ]
    return events


def response_stream(
    *items: list[dict[str, Any]],
    model: str = "gpt-test",
    response_id: str | None = None,
    usage: dict[str, Any] | None = None,
    failed: tuple[str, str] | None = None,
    incomplete: str | None = None,
) -> list[dict[str, Any]]:
    """A full stream: created, in_progress, each item's events (numbered), then the terminal event.

    `failed=(code, message)` ends with `response.failed`; `incomplete=reason` with
    `response.incomplete`; otherwise `response.completed` with `usage` (a default if None).
    """
    rid = response_id or _new_id("resp")
    base: dict[str, Any] = {
        "id": rid,
        "object": "response",
        "model": model,
        "output": [],
        "usage": None,
        "error": None,
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**base, "status": "in_progress"}},
        {"type": "response.in_progress", "response": {**base, "status": "in_progress"}},
    ]
    done_items: list[dict[str, Any]] = []
    for index, item_events in enumerate(items):
        for event in item_events:
            event = {**event, "output_index": index}
            events.append(event)
            if event["type"] == "response.output_item.done":
                done_items.append(event["item"])
    if failed is not None:
        code, message = failed
        final = {
            **base,
            "status": "failed",
            "output": done_items,
            "error": {"code": code, "message": message},
        }
        events.append({"type": "response.failed", "response": final})
    elif incomplete is not None:
        final = {
            **base,
            "status": "incomplete",
            "output": done_items,
            "incomplete_details": {"reason": incomplete},
        }
        events.append({"type": "response.incomplete", "response": final})
    else:
        final = {**base, "status": "completed", "output": done_items, "usage": usage or _default_usage()}
        events.append({"type": "response.completed", "response": final})
    for seq, event in enumerate(events):
        event["sequence_number"] = seq
    return events


def _default_usage() -> dict[str, Any]:
    return usage()

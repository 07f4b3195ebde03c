"""Builders of Responses stream events in the Codex wire shape: output items and whole streams.

Each item builder returns the events of one output item (`response.output_item.added`, its deltas
and `.done` events, `response.output_item.done`); `response_stream(*items)` numbers them, gives them
their `output_index`, wraps them in `response.created` / `response.in_progress` and ends with
`response.completed` (the finished items and `usage`), `response.failed`, `response.incomplete` — or
nothing, for a stream cut before its terminal event. The script cassette renders its responses with
these, the test helpers re-export them, so there is one definition of the wire shape.

Ids come from an `IdFactory` (prefix → id). The default is one process-wide sequence
(`msg_000001`, ...); pass `ids=sequential_ids()` for a fresh deterministic sequence, or explicit ids.

    events = response_stream(reasoning("thinking"), text_message("hello"), usage=usage(10, 2))
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

__all__ = [
    "IdFactory",
    "compaction",
    "custom_tool_call",
    "function_call",
    "reasoning",
    "response_envelope",
    "response_stream",
    "sequential_ids",
    "split_text",
    "text_message",
    "usage",
]

Event = dict[str, Any]
IdFactory = Callable[[str], str]
"""`prefix` (`msg`, `rs`, `fc`, `ctc`, `call`, `resp`) → a fresh id."""

_ITEM_EVENTS = ("response.output_item.added", "response.output_item.done")


def sequential_ids(width: int = 6) -> IdFactory:
    """A deterministic id factory: `prefix_000001`, `prefix_000002`, ... (one counter for all prefixes)."""
    counter = itertools.count(1)
    return lambda prefix: f"{prefix}_{next(counter):0{width}d}"


_default_ids = sequential_ids()


def split_text(text: str, chunks: int) -> list[str]:
    """Split text into about `chunks` deltas (at least one, even for empty text)."""
    if chunks <= 1 or len(text) <= 1:
        return [text]
    size = -(-len(text) // chunks)
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


_default_usage = usage  # `response_stream`'s `usage` parameter shadows the function


def _item(started: dict[str, Any], done: dict[str, Any], middle: list[Event]) -> list[Event]:
    return [
        {"type": "response.output_item.added", "item": started},
        *middle,
        {"type": "response.output_item.done", "item": done},
    ]


def text_message(
    text: str, chunks: int = 3, item_id: str | None = None, ids: IdFactory | None = None
) -> list[Event]:
    """An assistant message streamed as `chunks` `response.output_text.delta` events."""
    item_id = item_id or (ids or _default_ids)("msg")
    part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    done = {"id": item_id, "type": "message", "status": "completed", "role": "assistant", "content": [part]}
    ref = {"item_id": item_id, "content_index": 0}
    middle: list[Event] = [
        {"type": "response.content_part.added", **ref, "part": {**part, "text": ""}},
        *(
            {"type": "response.output_text.delta", **ref, "delta": piece, "logprobs": []}
            for piece in split_text(text, chunks)
        ),
        {"type": "response.output_text.done", **ref, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **ref, "part": part},
    ]
    return _item({**done, "status": "in_progress", "content": []}, done, middle)


def reasoning(
    summary: str | list[str],
    encrypted_content: str = "enc-opaque",
    chunks: int = 2,
    item_id: str | None = None,
    ids: IdFactory | None = None,
) -> list[Event]:
    """A `reasoning` item whose summary parts (one per string) stream as deltas."""
    item_id = item_id or (ids or _default_ids)("rs")
    texts = [summary] if isinstance(summary, str) else summary
    parts = [{"type": "summary_text", "text": s} for s in texts]
    done = {"id": item_id, "type": "reasoning", "summary": parts, "encrypted_content": encrypted_content}
    middle: list[Event] = []
    for index, text in enumerate(texts):
        ref = {"item_id": item_id, "summary_index": index}
        middle.append(
            {
                "type": "response.reasoning_summary_part.added",
                **ref,
                "part": {"type": "summary_text", "text": ""},
            }
        )
        middle += [
            {"type": "response.reasoning_summary_text.delta", **ref, "delta": piece}
            for piece in split_text(text, chunks)
        ]
        middle.append({"type": "response.reasoning_summary_text.done", **ref, "text": text})
        middle.append({"type": "response.reasoning_summary_part.done", **ref, "part": parts[index]})
    return _item({**done, "summary": []}, done, middle)


def function_call(
    name: str,
    arguments: dict[str, Any] | str,
    call_id: str | None = None,
    chunks: int = 2,
    item_id: str | None = None,
    namespace: str | None = None,
    ids: IdFactory | None = None,
) -> list[Event]:
    """A `function_call` item whose JSON arguments stream as deltas."""
    new_id = ids or _default_ids
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    item_id = item_id or new_id("fc")
    done: dict[str, Any] = {
        "id": item_id,
        "type": "function_call",
        "status": "completed",
        "name": name,
        "arguments": args,
        "call_id": call_id or new_id("call"),
    }
    if namespace:
        done["namespace"] = namespace
    middle: list[Event] = [
        {"type": "response.function_call_arguments.delta", "item_id": item_id, "delta": piece}
        for piece in split_text(args, chunks)
    ]
    middle.append({"type": "response.function_call_arguments.done", "item_id": item_id, "arguments": args})
    return _item({**done, "status": "in_progress", "arguments": ""}, done, middle)


def custom_tool_call(
    name: str,
    input: str,
    call_id: str | None = None,
    chunks: int = 2,
    item_id: str | None = None,
    ids: IdFactory | None = None,
) -> list[Event]:
    """A freeform `custom_tool_call` item (e.g. apply_patch) whose input streams as deltas."""
    new_id = ids or _default_ids
    item_id = item_id or new_id("ctc")
    done = {
        "id": item_id,
        "type": "custom_tool_call",
        "status": "completed",
        "name": name,
        "input": input,
        "call_id": call_id or new_id("call"),
    }
    middle: list[Event] = [
        {"type": "response.custom_tool_call_input.delta", "item_id": item_id, "delta": piece}
        for piece in split_text(input, chunks)
    ]
    middle.append({"type": "response.custom_tool_call_input.done", "item_id": item_id, "input": input})
    return _item({**done, "status": "in_progress", "input": ""}, done, middle)


def compaction(
    encrypted_content: str = "enc-compacted", item_id: str | None = None, ids: IdFactory | None = None
) -> list[Event]:
    """A `compaction` item: the whole answer to a remote compaction (v2) request, the opaque summary
    the client carries into its next request."""
    item_id = item_id or (ids or _default_ids)("cmp")
    done = {"id": item_id, "type": "compaction", "encrypted_content": encrypted_content}
    return _item(done, done, [])


def response_envelope(
    response_id: str, model: str, status: str, created_at: int | None = None
) -> dict[str, Any]:
    """The `response` object of `response.created` and the terminal events, before output is added."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()) if created_at is None else created_at,
        "status": status,
        "model": model,
        "output": [],
        "usage": None,
        "error": None,
        "incomplete_details": None,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


def response_stream(
    *items: list[Event],
    model: str = "gpt-test",
    response_id: str | None = None,
    usage: dict[str, Any] | Callable[[list[dict[str, Any]]], dict[str, Any]] | None = None,
    failed: tuple[str, str] | None = None,
    incomplete: str | None = None,
    cut: bool = False,
    created_at: int | None = None,
    ids: IdFactory | None = None,
) -> list[Event]:
    """A full stream: created, in_progress, each item's events, then the terminal event (numbered).

    `failed=(code, message)` ends with `response.failed`; `incomplete=reason` with
    `response.incomplete`; `cut=True` with nothing; otherwise `response.completed` with `usage` — an
    object, a function of the finished items, or a default.
    """
    rid = response_id or (ids or _default_ids)("resp")
    created = int(time.time()) if created_at is None else created_at
    out: list[Event] = []

    def emit(event: Event) -> None:
        out.append({"type": event.pop("type"), "sequence_number": len(out), **event})

    emit({"type": "response.created", "response": response_envelope(rid, model, "in_progress", created)})
    emit({"type": "response.in_progress", "response": response_envelope(rid, model, "in_progress", created)})
    done_items: list[dict[str, Any]] = []
    for index, item_events in enumerate(items):
        for event in item_events:
            if event["type"] in _ITEM_EVENTS:
                emit({"type": event["type"], "output_index": index, "item": event["item"]})
            else:
                emit({**event, "output_index": index})
            if event["type"] == "response.output_item.done":
                done_items.append(event["item"])
    if cut:
        return out  # the stream is dropped before its terminal event
    final = {**response_envelope(rid, model, "completed", created), "output": done_items}
    if failed is not None:
        code, message = failed
        final.update(status="failed", error={"code": code, "message": message})
        emit({"type": "response.failed", "response": final})
    elif incomplete is not None:
        final.update(status="incomplete", incomplete_details={"reason": incomplete})
        emit({"type": "response.incomplete", "response": final})
    else:
        final["usage"] = usage(done_items) if callable(usage) else (usage or _default_usage())
        emit({"type": "response.completed", "response": final})
    return out

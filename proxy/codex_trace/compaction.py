"""A remote compaction in Codex's trace, as the request the wire carried.

Codex traces a remote compaction (v2: an input ending in `{"type": "compaction_trigger"}`, over HTTP or
the Responses WebSocket) as `compaction_request_started` / `_completed` / `compaction_installed`
(docs/codex-trace.md). Its request payload is Codex's own account, not the body sent: `model`,
`instructions` (the base instructions, which the wire carries as the first developer message of the
input), `input` (the history without that message, each item's metadata passthrough also holding
`content_item_metadata`, which Codex strips before sending) and `parallel_tool_calls`. The body sent is
the thread's previous request with the new items and the trigger appended, so that is what the import
rebuilds: the previous request's keys, its chain extended by the items the compaction input adds (as
a `response.create` frame when the previous request was one), and its `client_metadata` with the turn
metadata's `request_kind` set to `compaction` (and without the `model` and `reasoning_effort` a
compaction's turn metadata does not carry). What the trace does not hold is the turn metadata's
`compaction` object (trigger, reason, phase, strategy) and a frame's send-time stamp; the exchange
lists them (`NOT_IN_TRACE`).

A local compaction (a custom provider: a `/responses` request with Codex's compaction prompt and no
tools) is not in the trace at all: Codex 0.169.0 and 0.171.0 write no event for it.
"""

from __future__ import annotations

import json
from typing import Any

from ..responses.vocabulary import CodexHeader

__all__ = ["NOT_IN_TRACE", "as_traced", "compaction_body", "sendable_item"]

NOT_IN_TRACE = (
    f"client_metadata.{CodexHeader.TURN_METADATA.value}.compaction",
    f"client_metadata.{CodexHeader.WS_REQUEST_START.value}",
)
"""What a rebuilt compaction request lacks: the turn metadata's `compaction` details (trigger,
reason, phase, strategy) and, on a socket, the frame's send-time stamp."""

_FRAME_KEYS = ("type", "previous_response_id")
_NOT_IN_COMPACTION_TURNS = ("model", "reasoning_effort")
"""Turn-metadata keys of a model turn that a compaction request's turn metadata does not carry."""


def sendable_item(item: Any) -> Any:
    """A history item as Codex sends it: its metadata passthrough without `content_item_metadata`."""
    if not isinstance(item, dict):
        return item
    passthrough = item.get("internal_chat_message_metadata_passthrough")
    if not isinstance(passthrough, dict) or "content_item_metadata" not in passthrough:
        return item
    kept = {k: v for k, v in passthrough.items() if k != "content_item_metadata"}
    return {**item, "internal_chat_message_metadata_passthrough": kept}


def _compaction_metadata(meta: Any) -> Any:
    """`client_metadata` with its turn metadata's request_kind set to compaction (the rest as it was)."""
    if not isinstance(meta, dict):
        return meta
    key = CodexHeader.TURN_METADATA.value
    turn = meta.get(key)
    try:
        parsed = json.loads(turn) if isinstance(turn, str) else None
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return meta
    parsed["request_kind"] = "compaction"
    for absent in _NOT_IN_COMPACTION_TURNS:
        parsed.pop(absent, None)
    kept = {k: v for k, v in meta.items() if k != CodexHeader.WS_REQUEST_START.value}
    return {**kept, key: json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)}


def compaction_body(
    request: dict[str, Any],
    previous: dict[str, Any],
    context: list[Any],
    previous_response: str | None,
    socket: bool = False,
) -> dict[str, Any] | None:
    """The compaction request as sent, from the trace's `request` payload and the thread's `previous`
    request body (`context`: that request's whole input plus its answer's output; `socket`: it went over
    the WebSocket); None when the trace's input does not continue that context (nothing is guessed).

    Over HTTP the whole history is sent again, each item as Codex holds it (the trace's input); on a
    socket only the items after the previous answer are sent, the rest being the server's own: a full
    form of it (0.169.0 traces a socket's first request so) is that context plus those items."""
    items = [sendable_item(i) for i in request.get("input") or []]
    instructions = request.get("instructions")
    lead: list[Any] = []
    if "instructions" not in previous and instructions is not None:
        # the wire's first item is the developer message holding the instructions
        lead = [i for i in context[:1] if _holds_text(i, instructions)]
        if not lead and not socket and previous.get("type") != "response.create":
            return None
    body = {k: v for k, v in previous.items() if k not in _FRAME_KEYS}
    if "instructions" in previous:
        body["instructions"] = instructions
    body["model"] = request.get("model", previous.get("model"))
    if "parallel_tool_calls" in request:
        body["parallel_tool_calls"] = request["parallel_tool_calls"]
    if "client_metadata" in body:
        body["client_metadata"] = _compaction_metadata(body["client_metadata"])
    if previous.get("type") == "response.create" and previous_response:
        # a socket's frame: only the items after the previous answer, chained to it
        new = _after(items, context[-1] if context else None)
        if new is None:
            return None
        body = {"type": "response.create", **body, "previous_response_id": previous_response, "input": new}
        return _ordered(body, previous)
    if socket:
        new = _after(items, context[-1] if context else None)
        if new is None:
            return None
        body["input"] = [*context, *new]
        return _ordered(body, previous)
    body["input"] = [*lead, *items]
    return _ordered(body, previous)


def _holds_text(item: Any, text: str) -> bool:
    content = item.get("content") if isinstance(item, dict) else None
    return isinstance(content, list) and any(isinstance(p, dict) and p.get("text") == text for p in content)


def _after(items: list[Any], last: Any) -> list[Any] | None:
    """The items after the one that is `last` (the previous answer's last item, found by its id)."""
    key = last.get("id") or last.get("call_id") if isinstance(last, dict) else None
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if key is not None and isinstance(item, dict) and key in (item.get("id"), item.get("call_id")):
            return items[index + 1 :]
    return None


def _ordered(body: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """`body`'s keys in the order the previous request had them (a recording keeps the wire's order)."""
    first = [k for k in previous if k in body]
    return {**{k: body[k] for k in first}, **{k: v for k, v in body.items() if k not in first}}


def as_traced(body: dict[str, Any]) -> dict[str, Any]:
    """A compaction request without what its trace cannot hold (`NOT_IN_TRACE`): the view in which the
    wire's body and the one rebuilt from the trace are compared."""
    meta = body.get("client_metadata")
    if not isinstance(meta, dict):
        return body
    kept = {k: v for k, v in meta.items() if k != CodexHeader.WS_REQUEST_START.value}
    key = CodexHeader.TURN_METADATA.value
    try:
        turn = json.loads(kept[key]) if isinstance(kept.get(key), str) else None
    except ValueError:
        turn = None
    if isinstance(turn, dict) and "compaction" in turn:
        del turn["compaction"]
        kept[key] = json.dumps(turn, separators=(",", ":"), ensure_ascii=False)
    return {**body, "client_metadata": kept}

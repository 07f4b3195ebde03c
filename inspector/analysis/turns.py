"""From exchanges to turns: one model request each, with its full context rebuilt.

A client may send only the new items and point at the previous response with
`previous_response_id` (HTTP, or a WebSocket `response.create` frame); the full context of such a
turn is the context of the turn that produced that response, plus its output, plus the new items.
Exchanges that are not Responses requests are skipped with a one-line warning, never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxscope.inspector.analysis.inputs import input_list
from ctxscope.inspector.analysis.items import Item
from ctxscope.proxy.model import Exchange
from ctxscope.proxy.responses import thread_hint
from ctxscope.proxy.responses.vocabulary import (
    FINAL_STATUSES,
    MODEL_ENDPOINTS,
    SIDE_SOURCES,
    RequestKind,
    SideKind,
    is_compaction_trigger,
    turn_metadata,
)
from ctxscope.proxy.store.prefix_list import PrefixList

_SKIP_QUIETLY = ("models",)


@dataclass
class Turn:
    """One model request of a recording and what came back."""

    number: int
    """1-based position among the recording's model requests (what `--turn N` refers to)."""
    exchange: Exchange
    transport: str
    """`http` or `websocket`."""
    endpoint: str
    """`responses` or `responses/compact` (remote compaction)."""
    body: dict[str, Any]
    raw_input: Sequence[Any]
    """The full context: rebuilt from the `previous_response_id` chain when the request was partial."""
    sent_items: int
    """How many items the request itself carried (the rest came from the chain)."""
    previous_response_id: str | None
    chain_resolved: bool
    response_id: str | None
    output: list[Any]
    usage: dict[str, Any] | None
    status: str
    """`completed`, `failed`, `incomplete`, `no response`, `transport error`, `http <code>`."""
    error: str | None
    request_kind: str | None
    """From `x-codex-turn-metadata`: `turn`, `prewarm`, `compaction`, `memory`; `compact` for remote."""
    thread_hint: str | None
    """An explicit conversation id (session/thread headers, client_metadata, prompt_cache_key)."""
    side: str | None = None
    """A side request beside the conversation (a `SideKind`: Codex's `thread_source` `thread_title`,
    the TUI asking for a session title on a thread of its own, or a `generate: false` prewarm), or
    None for the conversation's own requests."""
    beside: str | None = None
    """For a side request: the conversation thread it was made beside (the latest one before it)."""
    items: Sequence[Item] = field(default_factory=list)
    thread: str = ""

    @property
    def model(self) -> str | None:
        """The requested model."""
        value = self.body.get("model")
        return value if isinstance(value, str) else None


def _request_body(exchange: Exchange) -> dict[str, Any] | None:
    body = exchange.request_body
    if not isinstance(body, dict):
        return None
    if exchange.endpoint == "websocket":
        # `response.create` frames carry the request fields at top level (older: under "response").
        inner = body.get("response")
        merged = {**body, **inner} if isinstance(inner, dict) else dict(body)
        merged.pop("type", None)
        merged.pop("response", None)
        return merged
    return body


def _outcome(exchange: Exchange) -> tuple[str, str | None, str | None, list[Any], dict[str, Any] | None]:
    """(status, error, response id, output items, usage) of one exchange."""
    response = exchange.response
    if (
        response is None
        and exchange.endpoint == "responses/compact"
        and isinstance(exchange.response_body, dict)
    ):
        response = exchange.response_body
    output = list(response.get("output") or []) if isinstance(response, dict) else []
    usage = response.get("usage") if isinstance(response, dict) else None
    rid = response.get("id") if isinstance(response, dict) else None
    if exchange.error is not None and isinstance(response, dict) and response.get("status") == "completed":
        # Clients (the Codex CLI) may close the connection right after `response.completed`.
        return "completed", f"{exchange.error.kind} after completion", rid, output, usage
    if exchange.error is not None:
        return "transport error", f"{exchange.error.kind}: {exchange.error.message}", rid, output, usage
    if exchange.status is not None and exchange.status >= 400:
        detail = exchange.response_text or (
            json.dumps(exchange.response_body)[:200] if exchange.response_body is not None else None
        )
        return f"http {exchange.status}", detail, rid, output, usage
    if not isinstance(response, dict):
        return "no response", None, rid, output, usage
    err = response.get("error")
    status = str(response.get("status") or ("completed" if exchange.endpoint == "responses/compact" else "?"))
    if status == "in_progress" or (exchange.sse and status not in FINAL_STATUSES):
        status = "incomplete stream"  # the stream ended without a terminal event
    message = None
    if isinstance(err, dict):
        message = f"{err.get('code') or err.get('type') or 'error'}: {err.get('message', '')}".strip()
    return (
        status,
        message,
        rid if isinstance(rid, str) else None,
        output,
        usage if isinstance(usage, dict) else None,
    )


def _turn_body(exchange: Exchange) -> tuple[dict[str, Any] | None, str | None]:
    """The Responses request body a turn is made of, or None with why (None: skipped quietly)."""
    if exchange.endpoint in _SKIP_QUIETLY or (exchange.endpoint == "websocket" and exchange.request_body is None):
        return None, None
    body = _request_body(exchange)
    where = f"exchange {exchange.id} ({exchange.method} {exchange.url})"
    if exchange.endpoint not in MODEL_ENDPOINTS:
        if body is not None and ("messages" in body or "prompt" in body):
            return None, f"{where} is not a Responses request; skipped"
        return None, None
    if body is None or ("input" not in body and "previous_response_id" not in body):
        return None, f"{where} has no Responses request body (no `input`); skipped"
    return body, None


def makes_turn(exchange: Exchange) -> bool:
    """Whether the analysis makes a model turn of `exchange` (`extract_turns`' own test): what
    `ctxscope run` counts as a model request, so its count of the rest is the analysis's."""
    return _turn_body(exchange)[0] is not None


def _chained(context: Sequence[Any], added: list[Any]) -> Sequence[Any]:
    """A `previous_response_id` chain's context: the parent's context and what followed it. Where the
    reader shares inputs (`PrefixList`), the chain shares its parent's storage too, so a long
    WebSocket session holds its items once; else a real list, as the reader's."""
    if isinstance(context, PrefixList):
        return PrefixList(context, len(context), added)
    return [*context, *added]


def extract_turns(exchanges: list[Exchange]) -> tuple[list[Turn], list[str]]:
    """Model-request turns in request order, and warnings about exchanges that were skipped."""
    warnings: list[str] = []
    turns: list[Turn] = []
    by_response: dict[str, Turn] = {}
    for exchange in sorted(exchanges, key=lambda e: (e.started_at, e.id)):
        body, skipped = _turn_body(exchange)
        if body is None:
            if skipped:
                warnings.append(skipped)
            continue
        sent = input_list(body)
        prev_id = body.get("previous_response_id")
        prev_id = prev_id if isinstance(prev_id, str) and prev_id else None
        full, resolved = sent, True
        if prev_id is not None:
            parent = by_response.get(prev_id)
            if parent is None:
                resolved = False
                warnings.append(
                    f"exchange {exchange.id} ({exchange.method} {exchange.url}): "
                    f"previous_response_id {prev_id} is not in the recording; "
                    "its context starts at the items it sent"
                )
            else:
                full = _chained(parent.raw_input, [*parent.output, *sent])
        status, error, rid, output, usage = _outcome(exchange)
        meta = turn_metadata(exchange.request_headers, body)
        kind = meta.get("request_kind")
        source = meta.get("thread_source")
        side = source if isinstance(source, str) and source in SIDE_SOURCES else None
        if body.get("generate") is False:
            side = SideKind.PREWARM.value  # warms the cache; the next request chains on it
        if exchange.endpoint == "responses/compact":
            kind = RequestKind.COMPACT.value
        elif kind is None and is_compaction_trigger(body):
            kind = RequestKind.COMPACTION.value  # remote compaction v2 from a client that does not say so
        turn = Turn(
            number=len(turns) + 1,
            exchange=exchange,
            transport="websocket" if exchange.endpoint == "websocket" else "http",
            endpoint="responses/compact" if exchange.endpoint == "responses/compact" else "responses",
            body=body,
            raw_input=full,
            sent_items=len(sent),
            previous_response_id=prev_id,
            chain_resolved=resolved,
            response_id=rid,
            output=output,
            usage=usage,
            status=status,
            error=error,
            request_kind=kind if isinstance(kind, str) else None,
            thread_hint=thread_hint(exchange.request_headers, body),
            side=side,
        )
        turns.append(turn)
        if rid:
            by_response[rid] = turn
    return turns, warnings

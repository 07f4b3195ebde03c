"""Redacting a stream of events (SSE `data` payloads, WebSocket server frames) as one text per field.

A model that repeats a key streams it in pieces ("ok: sk", "-proj-", …), so no single event holds
anything secret-shaped. The deltas of each streamed field (output text, function-call arguments,
reasoning text, refusals) are joined, the joined text is redacted, and the deltas are cut again so that
they join to the redacted text (`resplit`); their logprobs tokens are cut the same way. Every other event
is redacted as JSON. An event is rewritten only where something was redacted: a stream without secrets
is stored byte for byte as received.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import orjson

from .redactor import Redactor, resplit, rewrite_logprobs

__all__ = ["redact_events"]


def _loads(data: str) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode("utf-8")


def _delta_key(event: Any) -> tuple[Any, ...] | None:
    if not isinstance(event, dict):
        return None
    kind = event.get("type")
    if not isinstance(kind, str) or not kind.endswith(".delta") or not isinstance(event.get("delta"), str):
        return None
    where = tuple(event.get(k) for k in ("item_id", "output_index", "content_index", "summary_index"))
    return (kind, *map(str, where))


def redact_events(redactor: Redactor, datas: list[str]) -> list[str]:
    """The event payloads with their secrets replaced (see the module docstring)."""
    parsed: list[Any] = [_loads(d) if d.startswith("{") else None for d in datas]
    out = list(datas)
    groups: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for index, event in enumerate(parsed):
        key = _delta_key(event)
        if key is not None:
            groups[key].append(index)
    for indices in groups.values():
        events: list[dict[str, Any]] = [parsed[i] for i in indices]  # each one passed `_delta_key`
        _redact_deltas(redactor, events, indices, out)
    in_groups = {i for indices in groups.values() for i in indices}
    for index, event in enumerate(parsed):
        if index in in_groups:
            continue
        if event is None:
            out[index] = redactor.text(datas[index])
            continue
        redacted = redactor.body(event)
        if redacted is not event:
            out[index] = _dumps(redacted)
    return out


def _redact_deltas(
    redactor: Redactor, events: list[dict[str, Any]], indices: list[int], out: list[str]
) -> None:
    pieces = [e["delta"] for e in events]
    redacted, spans = redactor.spans("".join(pieces))
    if not spans:
        return
    new_pieces = resplit(pieces, spans, redacted)
    token_lists = [_tokens(e, piece) for e, piece in zip(events, pieces, strict=True)]
    new_tokens: list[list[str]] | None = None
    if all(t is not None for t in token_lists):
        flat = [tok for tokens in token_lists if tokens is not None for tok in tokens]
        cut = resplit(flat, spans, redacted)
        new_tokens, at = [], 0
        for tokens in token_lists:
            assert tokens is not None
            new_tokens.append(cut[at : at + len(tokens)])
            at += len(tokens)
    for n, (event, index) in enumerate(zip(events, indices, strict=True)):
        if new_pieces[n] == pieces[n]:
            continue
        changed = {**event, "delta": new_pieces[n]}
        logprobs = event.get("logprobs")
        if isinstance(logprobs, list) and logprobs:
            old_tokens = token_lists[n]
            if new_tokens is not None and old_tokens is not None:
                changed["logprobs"] = rewrite_logprobs(logprobs, old_tokens, new_tokens[n])
            else:
                changed["logprobs"] = []
        out[index] = _dumps(changed)


def _tokens(event: dict[str, Any], piece: str) -> list[str] | None:
    """The event's logprobs tokens if they spell its delta exactly ([] without logprobs), else None."""
    logprobs = event.get("logprobs")
    if not isinstance(logprobs, list) or not logprobs:
        return []
    tokens = [lp.get("token") if isinstance(lp, dict) else None for lp in logprobs]
    if not all(isinstance(t, str) for t in tokens) or "".join(t for t in tokens if t) != piece:
        return None
    return [t for t in tokens if isinstance(t, str)]

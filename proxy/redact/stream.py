"""Redacting a stream of events (SSE `data` payloads, WebSocket server frames) as one text per field.

A model that repeats a key streams it in pieces ("ok: sk", "-proj-", …), so no single event holds
anything secret-shaped. The deltas of each streamed field (output text, function-call arguments,
reasoning text, refusals) are joined, the joined text is redacted, and the deltas are cut again so that
they join to the redacted text (`resplit`); their logprobs tokens are cut the same way. Every other event
is redacted as JSON. An event is rewritten only where something was redacted: a stream without secrets
is stored byte for byte as received.

A stream cut inside a secret (the connection dropped, the model was stopped) leaves a stub no shape
matches (`sk-proj-Ab3`): a field whose `.done` event never came has the random-looking or
vendor-prefixed run it ends in replaced too, and remembered, so the stub is also found in the
response folded from the same events.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import orjson

from ctxscope.proxy.responses.vocabulary import DONE_EVENT, TerminalEvent

from .redactor import Redactor, Span, resplit, rewrite_logprobs
from .shapes import prefixes
from .values import looks_random

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


# A response that ends this way ended every field it streamed (`incomplete` and `failed` may have cut one).
_COMPLETED = frozenset({TerminalEvent.COMPLETED.value, DONE_EVENT})
_TRAILING_RUN = re.compile(r"[A-Za-z0-9_+/.-]{4,}\Z")


def _done_key(event: Any) -> tuple[Any, ...] | None:
    if not isinstance(event, dict):
        return None
    kind = event.get("type")
    if not isinstance(kind, str) or not kind.endswith(".done"):
        return None
    where = tuple(event.get(k) for k in ("item_id", "output_index", "content_index", "summary_index"))
    return (kind[: -len(".done")] + ".delta", *map(str, where))


def redact_events(redactor: Redactor, datas: list[str]) -> list[str]:
    """The event payloads with their secrets replaced (see the module docstring)."""
    parsed: list[Any] = [_loads(d) if d.startswith("{") else None for d in datas]
    out = list(datas)
    groups: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    done: set[tuple[Any, ...]] = set()
    completed = False
    for index, event in enumerate(parsed):
        key = _delta_key(event)
        if key is not None:
            groups[key].append(index)
        elif (finished := _done_key(event)) is not None:
            done.add(finished)
        elif isinstance(event, dict) and event.get("type") in _COMPLETED:
            completed = True
    for key, indices in groups.items():
        events: list[dict[str, Any]] = [parsed[i] for i in indices]  # each one passed `_delta_key`
        _redact_deltas(redactor, events, indices, out, cut=not completed and key not in done)
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


def _cut_stub(text: str, spans: list[Span]) -> tuple[int, str] | None:
    """Where the stub of a secret a cut stream ends in starts, and the stub (None: it ends in none)."""
    match = _TRAILING_RUN.search(text)
    if match is None or (spans and spans[-1][1] > match.start()):
        return None
    run = match.group(0)
    at = min((i for i in (run.find(p) for p in prefixes()) if i >= 0), default=-1)
    if at >= 0 and len(run) - at > 2:
        return match.start() + at, run[at:]
    mixed = any(c.isdigit() for c in run) and any(c.isalpha() for c in run)
    if looks_random(run) or (len(run) >= 8 and mixed):
        return match.start(), run
    return None


def _redact_deltas(
    redactor: Redactor, events: list[dict[str, Any]], indices: list[int], out: list[str], cut: bool
) -> None:
    pieces = [e["delta"] for e in events]
    joined = "".join(pieces)
    redacted, spans = redactor.spans(joined)
    stub = _cut_stub(joined, spans) if cut else None
    if stub is not None:
        start, partial = stub
        placeholder = redactor.cut_stub(partial)
        redacted = redacted[: len(redacted) - len(partial)] + placeholder
        spans = [*spans, (start, len(joined), placeholder)]
    if not spans:
        return
    new_pieces = resplit(pieces, spans, redacted)
    token_lists = [_tokens(e, piece) for e, piece in zip(events, pieces, strict=True)]
    new_tokens: list[list[str]] | None = None
    if all(t is not None for t in token_lists):
        flat = [tok for tokens in token_lists if tokens is not None for tok in tokens]
        recut = resplit(flat, spans, redacted)
        new_tokens, at = [], 0
        for tokens in token_lists:
            assert tokens is not None
            new_tokens.append(recut[at : at + len(tokens)])
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

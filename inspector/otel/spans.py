"""A recording as OpenTelemetry spans, following the GenAI semantic conventions (pure: no OTel import).

Teams already look at agents in Langfuse, Phoenix, Jaeger or Grafana through OTLP. What those tools
cannot see is why a request changed; the recording knows. So each thread becomes a trace: a root
`invoke_agent {client}` span over the session, and one `chat {model}` child span per model request
with the standard `gen_ai.*` attributes (model, response id, usage with cache reads, finish reason,
conversation id, errors), plus ctxscope's own `ctxscope.*` attributes taken from the published
report (ctxscope-report/1): the change kind, world-state sentences, fragments added and removed,
tools that changed, token attribution, the compaction sentence, mode switches.

Content (the messages themselves) is opt-in, as the conventions ask: `none` (default), `added` (only
the items this request added, the compact choice: backends cap attribute and span sizes) or `full`
(`gen_ai.input.messages` for every request). Recordings are redacted, so no secret travels either way.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.instructions import effective_instructions
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.reports.build import turn_doc

__all__ = ["ContentMode", "SpanEvent", "SpanSpec", "recording_spans", "to_messages"]

ContentMode = Literal["none", "added", "full"]
AttrValue = str | bool | int | float | list[str] | list[int]


@dataclass(frozen=True)
class SpanEvent:
    name: str
    time_ns: int
    attributes: dict[str, AttrValue] = field(default_factory=dict)


@dataclass
class SpanSpec:
    """One span to emit: ids are derived from `trace_key`/`span_key`, so a re-export is idempotent."""

    name: str
    trace_key: str
    span_key: str
    parent_key: str | None
    start_ns: int
    end_ns: int
    client: bool
    """SpanKind CLIENT (a request to the model) rather than INTERNAL (the agent's session)."""
    attributes: dict[str, AttrValue] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    error: str | None = None
    """The span's error description (status ERROR), or None."""

    @property
    def trace_id(self) -> int:
        return _id(self.trace_key, 16)

    @property
    def span_id(self) -> int:
        return _id(self.span_key, 8)

    @property
    def parent_id(self) -> int | None:
        return _id(self.parent_key, 8) if self.parent_key else None


def _id(key: str, size: int) -> int:
    value = int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=size).digest(), "big")
    return value or 1  # an all-zero id is invalid in OTLP


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)


def _times(result: TurnAnalysis) -> tuple[int, int]:
    exchange = result.turn.exchange
    start = _ns(exchange.started_at)
    if exchange.ended_at is not None:
        end = _ns(exchange.ended_at)
    elif exchange.duration_ms is not None:
        end = start + int(exchange.duration_ms * 1_000_000)
    else:
        end = start
    return start, max(start, end)


# --- messages in the conventions' JSON shape ---------------------------------------------------

_ROLES = {"developer": "system", "system": "system", "user": "user", "assistant": "assistant"}


def _text_of(raw: dict[str, Any]) -> str:
    parts = raw.get("content")
    if isinstance(parts, str):
        return parts
    return "".join(str(p.get("text", "")) for p in parts or [] if isinstance(p, dict))


def _part(raw: Any) -> tuple[str, dict[str, Any]]:
    """(role, part) of one Responses item."""
    if not isinstance(raw, dict):
        return "user", {"type": "text", "content": str(raw)}
    kind = str(raw.get("type", "message"))
    if kind == "message":
        return _ROLES.get(str(raw.get("role")), "user"), {"type": "text", "content": _text_of(raw)}
    if kind in ("function_call", "custom_tool_call"):
        arguments = raw.get("arguments", raw.get("input", ""))
        return "assistant", {
            "type": "tool_call",
            "id": raw.get("call_id"),
            "name": raw.get("name"),
            "arguments": arguments,
        }
    if kind.endswith("_output"):
        return "tool", {"type": "tool_call_response", "id": raw.get("call_id"), "response": raw.get("output")}
    if kind == "reasoning":
        summary = " ".join(str(p.get("text", "")) for p in raw.get("summary") or [] if isinstance(p, dict))
        return "assistant", {"type": "reasoning", "content": summary}
    return "user", {"type": kind}


def to_messages(items: list[Any]) -> list[dict[str, Any]]:
    """Responses items as the conventions' messages (`{"role", "parts": [...]}`); consecutive items of
    the model or tools produced join one message, as a batch of tool calls is one assistant turn."""
    messages: list[dict[str, Any]] = []
    for raw in items:
        role, part = _part(raw)
        if messages and messages[-1]["role"] == role and role in ("assistant", "tool"):
            messages[-1]["parts"].append(part)
        else:
            messages.append({"role": role, "parts": [part]})
    return messages


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _raw(items: list[Item]) -> list[Any]:
    return [i.raw for i in items]


# --- spans --------------------------------------------------------------------------------------


def _usage(result: TurnAnalysis) -> dict[str, AttrValue]:
    usage = result.turn.usage or {}
    out: dict[str, AttrValue] = {}
    for key, name in (
        ("input_tokens", "gen_ai.usage.input_tokens"),
        ("output_tokens", "gen_ai.usage.output_tokens"),
    ):
        if isinstance(usage.get(key), int):
            out[name] = usage[key]
    cached = (usage.get("input_tokens_details") or {}).get("cached_tokens")
    if isinstance(cached, int):
        out["gen_ai.usage.cache_read.input_tokens"] = cached
    reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    if isinstance(reasoning, int):
        out["gen_ai.usage.reasoning.output_tokens"] = reasoning
    return out


def _ctxscope_attributes(doc: dict[str, Any]) -> dict[str, AttrValue]:
    """ctxscope.* from the turn's report document (the published ctxscope-report/1 vocabulary)."""
    change = doc.get("change") or {}
    out: dict[str, AttrValue] = {
        "ctxscope.turn": doc["turn"],
        "ctxscope.exchange": doc["exchange"],
        "ctxscope.thread": doc["thread"],
        "ctxscope.transport": doc["transport"],
        "ctxscope.endpoint": doc["endpoint"],
        "ctxscope.change.kind": str(change.get("kind")),
        "ctxscope.change.kept": int(change.get("kept") or 0),
        "ctxscope.change.added": int(change.get("added") or 0),
        "ctxscope.change.removed": int(change.get("removed") or 0),
        "ctxscope.items": int(doc.get("items") or 0),
        "ctxscope.instructions_changed": bool(doc.get("instructions_changed")),
    }
    if doc.get("request_kind"):
        out["ctxscope.request_kind"] = str(doc["request_kind"])
    if doc.get("side"):
        out["ctxscope.side"] = str(doc["side"])
    if doc.get("world_state_changes"):
        out["ctxscope.world_state.changes"] = [str(s) for s in doc["world_state_changes"]]
    fragments = doc.get("fragments_changed") or []
    for verb in ("added", "removed"):
        labels = [str(f["label"]) for f in fragments if f.get("change") == verb]
        if labels:
            out[f"ctxscope.fragments.{verb}"] = labels
    tools = doc.get("tools") or {}
    for verb in ("added", "removed"):
        if tools.get(verb):
            out[f"ctxscope.tools.{verb}"] = [str(t) for t in tools[verb]]
    if tools.get("changed"):
        out["ctxscope.tools.changed"] = sorted(str(t) for t in tools["changed"])
    tokens = doc.get("tokens") or {}
    for kind, count in (tokens.get("by_kind") or {}).items():
        out[f"ctxscope.tokens.{kind}"] = int(count)
    if doc.get("compaction"):
        out["ctxscope.compaction"] = str(doc["compaction"]["sentence"])
    if doc.get("notes"):
        out["ctxscope.notes"] = [str(n) for n in doc["notes"]]
    return out


def _turn_span(result: TurnAnalysis, trace_key: str, parent_key: str, content: ContentMode) -> SpanSpec:
    turn = result.turn
    doc = turn_doc(result).model_dump(mode="json")
    model = str(turn.body.get("model") or "unknown")
    start, end = _times(result)
    attributes: dict[str, AttrValue] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": model,
        "gen_ai.response.finish_reasons": [str(result.answer.status)],
        # The answer's shape (item kinds and tool names) is not content; its texts are (opt-in below).
        "ctxscope.answer.status": result.answer.status,
    }
    if result.answer.items:
        attributes["ctxscope.answer.output"] = result.answer.shape
    response = turn.exchange.response or {}
    if response.get("model"):
        attributes["gen_ai.response.model"] = str(response["model"])
    if turn.response_id:
        attributes["gen_ai.response.id"] = turn.response_id
    if turn.thread_hint:
        attributes["gen_ai.conversation.id"] = turn.thread_hint
    url = urlsplit(turn.exchange.url)
    if url.hostname:
        attributes["server.address"] = url.hostname
    if url.port:
        attributes["server.port"] = url.port
    if turn.exchange.status is not None:
        attributes["http.response.status_code"] = turn.exchange.status
    attributes.update(_usage(result))
    attributes.update(_ctxscope_attributes(doc))
    if content != "none":
        attributes["gen_ai.output.messages"] = _json(
            [dict(m, finish_reason=result.answer.status) for m in to_messages(list(turn.output))]
        )
        attributes["ctxscope.answer"] = result.answer.summary()
    if content == "full":
        attributes["gen_ai.input.messages"] = _json(to_messages(list(turn.raw_input)))
        instructions = effective_instructions(turn.body, turn.items)
        if instructions:
            attributes["gen_ai.system_instructions"] = _json([{"type": "text", "content": instructions}])
    elif content == "added":
        attributes["ctxscope.input.added_messages"] = _json(to_messages(_raw(result.change.added)))
    events = [  # plan submitted, mode switched, …: the published mode-event kinds
        SpanEvent(
            f"ctxscope.{e.get('kind', 'mode_event')}", start, {"ctxscope.sentence": str(e.get("sentence"))}
        )
        for e in doc.get("mode_events") or []
    ]
    error = None
    if turn.status != "completed":
        attributes["error.type"] = turn.status.replace(" ", "_")
        error = turn.error or turn.status
    return SpanSpec(
        name=f"chat {model}",
        trace_key=trace_key,
        span_key=f"{trace_key}/turn/{turn.number}",
        parent_key=parent_key,
        start_ns=start,
        end_ns=end,
        client=True,
        attributes=attributes,
        events=events,
        error=error,
    )


def recording_spans(analysis: Analysis, *, content: ContentMode = "none") -> list[SpanSpec]:
    """A trace per thread: the session span first, then its requests in order."""
    meta = analysis.header.meta if analysis.header is not None else {}
    agent = str(meta.get("client") or "agent")
    identity = str(meta.get("session_id") or meta.get("created_at") or analysis.source)
    by_number = {r.turn.number: r for r in analysis.turns}
    spans: list[SpanSpec] = []
    for thread in analysis.threads:
        results = [by_number[t.number] for t in thread.turns if t.number in by_number]
        if not results:
            continue
        trace_key = f"ctxscope/{identity}/{thread.hint or thread.name}"
        root_key = f"{trace_key}/session"
        children = [_turn_span(r, trace_key, root_key, content) for r in results]
        attributes: dict[str, AttrValue] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": agent,
            "gen_ai.provider.name": "openai",
            "ctxscope.thread": thread.name,
            "ctxscope.recording": analysis.source,
            "ctxscope.turns": len(results),
        }
        if thread.hint:
            attributes["gen_ai.conversation.id"] = thread.hint
        if thread.side:
            attributes["ctxscope.side"] = thread.side
        if thread.forked_from is not None:
            attributes["ctxscope.forked_from_turn"] = thread.forked_from
        failed = [c for c in children if c.error]
        spans.append(
            SpanSpec(
                name=f"invoke_agent {agent}",
                trace_key=trace_key,
                span_key=root_key,
                parent_key=None,
                start_ns=min(c.start_ns for c in children),
                end_ns=max(c.end_ns for c in children),
                client=False,
                attributes=attributes,
                error=f"{len(failed)} request(s) failed" if failed else None,
            )
        )
        spans += children
    return spans

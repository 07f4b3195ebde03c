"""A recording as OpenTelemetry spans, following the GenAI semantic conventions (pure: no OTel import).

Teams already look at agents in Langfuse, Phoenix, Jaeger or Grafana through OTLP. What those tools
cannot see is why a request changed; the recording knows. So each thread becomes a trace: a root
`invoke_agent {client}` span over the session, and one `chat {model}` child span per model request
with the standard `gen_ai.*` attributes (model, response id, usage with cache reads, finish reason,
conversation id, errors), plus ctxscope's own `ctxscope.*` attributes taken from the published
report (ctxscope-report/1): the change kind, world-state sentences, fragments added and removed,
tools that changed, token attribution, the compaction sentence, mode switches.

The conventions are v1.41's by default, `semconv="latest"` for the newest form (`semconv.py`): finish
reasons and `error.type` in the conventions' values (ctxscope's own status stays in
`ctxscope.answer.status`), the request parameters as recorded, the time to the first streamed chunk.
Every turn's attributes are read from its typed report document (`TurnDoc`), the one account of a
turn. No local absolute path leaves the machine unless `absolute_paths` asks for them: the recording is
named by its file name, and ctxscope's sentences write paths under the first working directory `./…`,
as `ctxscope diff` does (the messages, opt-in content, stay exactly as the model saw them).

Content (the messages themselves) is opt-in, as the conventions ask: `none` (default), `added` (only
the items this request added, the compact choice: backends cap attribute and span sizes) or `full`
(`gen_ai.input.messages` for every request). Recordings are redacted, so no secret travels either way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.instructions import effective_instructions
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.otel.semconv import (
    DEFAULT,
    Semconv,
    error_type,
    finish_reason,
    message_finish_reason,
    request_attributes,
    time_to_first_chunk,
    tool_result_field,
)
from ctxscope.inspector.reports.build import first_cwd, turn_doc
from ctxscope.inspector.reports.models import TurnDoc
from ctxscope.inspector.reports.terminal import Paths
from ctxscope.proxy.responses.vocabulary import CodexHeader

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


def _part(raw: Any, result_field: str) -> tuple[str, dict[str, Any]]:
    """(role, part) of one Responses item (`result_field`: where a tool result goes, per the conventions)."""
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
        return "tool", {"type": "tool_call_response", "id": raw.get("call_id"), result_field: raw.get("output")}
    if kind == "reasoning":
        summary = " ".join(str(p.get("text", "")) for p in raw.get("summary") or [] if isinstance(p, dict))
        return "assistant", {"type": "reasoning", "content": summary}
    return "user", {"type": kind}


def to_messages(items: list[Any], semconv: Semconv = DEFAULT) -> list[dict[str, Any]]:
    """Responses items as the conventions' messages (`{"role", "parts": [...]}`); consecutive items of
    the model or tools produced join one message, as a batch of tool calls is one assistant turn."""
    messages: list[dict[str, Any]] = []
    result_field = tool_result_field(semconv)
    for raw in items:
        role, part = _part(raw, result_field)
        if messages and messages[-1]["role"] == role and role in ("assistant", "tool"):
            messages[-1]["parts"].append(part)
        else:
            messages.append({"role": role, "parts": [part]})
    return messages


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _raw(items: Sequence[Item]) -> list[Any]:
    return [i.raw for i in items]


# --- spans --------------------------------------------------------------------------------------


def _usage(doc: TurnDoc) -> dict[str, AttrValue]:
    """Usage as the response reported it (`AnswerDoc.usage`: null where it said nothing)."""
    out: dict[str, AttrValue] = {}
    for key, name in (
        ("input_tokens", "gen_ai.usage.input_tokens"),
        ("output_tokens", "gen_ai.usage.output_tokens"),
        ("cached_tokens", "gen_ai.usage.cache_read.input_tokens"),
        ("reasoning_tokens", "gen_ai.usage.reasoning.output_tokens"),
        ("cache_write_tokens", "gen_ai.usage.cache_creation.input_tokens"),
    ):
        value = doc.answer.usage.get(key)
        if isinstance(value, int):
            out[name] = value
    # The GenAI conventions define no cost attribute: ctxscope's own, the turn document's one figure.
    if doc.cost is not None and doc.cost.usd is not None:
        out["ctxscope.cost.usd"] = doc.cost.usd
        if doc.cost.api_equivalent:
            out["ctxscope.cost.api_equivalent"] = True
    return out


def _ctxscope_attributes(doc: TurnDoc, paths: Paths) -> dict[str, AttrValue]:
    """ctxscope.* from the turn's report document (the published ctxscope-report/1 vocabulary), its
    sentences' paths written by `paths`."""
    change = doc.change
    out: dict[str, AttrValue] = {
        "ctxscope.turn": doc.turn,
        "ctxscope.exchange": doc.exchange,
        "ctxscope.thread": doc.thread,
        "ctxscope.transport": doc.transport,
        "ctxscope.endpoint": doc.endpoint,
        "ctxscope.change.kind": change.kind,
        "ctxscope.change.kept": change.kept,
        "ctxscope.change.added": change.added,
        "ctxscope.change.removed": change.removed,
        "ctxscope.items": doc.items,
        "ctxscope.instructions_changed": doc.instructions_changed,
        "ctxscope.status": doc.status,
        # The answer's shape (item kinds and tool names) is not content; its texts are (opt-in).
        "ctxscope.answer.status": doc.answer.status,
    }
    if doc.answer.output:
        out["ctxscope.answer.output"] = [item.kind for item in doc.answer.output]
    if doc.request_kind:
        out["ctxscope.request_kind"] = doc.request_kind
    if doc.side:
        out["ctxscope.side"] = doc.side
    if doc.world_state_changes:
        out["ctxscope.world_state.changes"] = [paths(s) for s in doc.world_state_changes]
    for verb in ("added", "removed"):
        labels = [paths(f.label) for f in doc.fragments_changed if f.change == verb]
        if labels:
            out[f"ctxscope.fragments.{verb}"] = labels
    if doc.tools.added:
        out["ctxscope.tools.added"] = list(doc.tools.added)
    if doc.tools.removed:
        out["ctxscope.tools.removed"] = list(doc.tools.removed)
    if doc.tools.changed:
        out["ctxscope.tools.changed"] = sorted(doc.tools.changed)
    for kind, count in doc.tokens.by_kind.items():
        out[f"ctxscope.tokens.{kind}"] = count
    if doc.compaction is not None:
        out["ctxscope.compaction"] = paths(doc.compaction.sentence)
    if doc.notes:
        out["ctxscope.notes"] = [paths(n) for n in doc.notes]
    return out


def _incomplete_reason(response: dict[str, Any] | None) -> str | None:
    details = (response or {}).get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    return reason if isinstance(reason, str) else None


def _first_chunk_ms(result: TurnAnalysis) -> float | None:
    """When the first event of a streamed answer arrived (ms after the request), or None."""
    exchange = result.turn.exchange
    if exchange.sse:
        return exchange.sse[0].t_ms
    return None


def _turn_span(
    result: TurnAnalysis, trace_key: str, parent_key: str, content: ContentMode, semconv: Semconv, paths: Paths
) -> SpanSpec:
    turn = result.turn
    exchange = turn.exchange
    doc = turn_doc(result)
    model = doc.model or "unknown"
    start, end = _times(result)
    response = exchange.response if isinstance(exchange.response, dict) else None
    stopped = _incomplete_reason(response)
    attributes: dict[str, AttrValue] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": model,
        "gen_ai.response.finish_reasons": [finish_reason(doc.answer, stopped)],
    }
    attributes.update(request_attributes(turn.body))
    if response is not None and response.get("model"):
        attributes["gen_ai.response.model"] = str(response["model"])
    if response is not None and isinstance(response.get("service_tier"), str):
        attributes["openai.response.service_tier"] = response["service_tier"]
    if turn.response_id:
        attributes["gen_ai.response.id"] = turn.response_id
    if turn.thread_hint:
        attributes["gen_ai.conversation.id"] = turn.thread_hint
    first_chunk = time_to_first_chunk(_first_chunk_ms(result))
    if first_chunk is not None:
        attributes["gen_ai.response.time_to_first_chunk"] = first_chunk
    url = urlsplit(exchange.url)
    if url.hostname:
        attributes["server.address"] = url.hostname
    if url.port:
        attributes["server.port"] = url.port
    if exchange.status is not None:
        attributes["http.response.status_code"] = exchange.status
    attributes.update(_usage(doc))
    attributes.update(_ctxscope_attributes(doc, paths))
    if content != "none":
        reason = message_finish_reason(doc.answer, stopped)
        attributes["gen_ai.output.messages"] = _json(
            [dict(m, finish_reason=reason) for m in to_messages(list(turn.output), semconv)]
        )
        attributes["ctxscope.answer"] = doc.answer.summary
    if content == "full":
        attributes["gen_ai.input.messages"] = _json(to_messages(list(turn.raw_input), semconv))
        instructions = effective_instructions(turn.body, turn.items)
        if instructions:
            attributes["gen_ai.system_instructions"] = _json([{"type": "text", "content": instructions}])
    elif content == "added":
        attributes["ctxscope.input.added_messages"] = _json(to_messages(_raw(result.change.added), semconv))
    events = [  # plan submitted, mode switched, …: the published mode-event kinds
        SpanEvent(f"ctxscope.{e.kind}", start, {"ctxscope.sentence": paths(e.sentence)}) for e in doc.mode_events
    ]
    error = None
    failure = error_type(
        doc.answer,
        response=response,
        http_status=exchange.status,
        transport=exchange.error.kind if exchange.error is not None else None,
    )
    if failure is not None:
        attributes["error.type"] = failure
        error = doc.answer.error or doc.error or doc.answer.status
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


def agent_name(analysis: Analysis) -> str | None:
    """The recorded client's name: the capture's `client` (ctxscope's agent says so), else the first
    request's Codex `originator` or the product in its user agent (`OpenAI/Python`); None if none."""
    meta = analysis.header.meta if analysis.header is not None else {}
    if meta.get("client"):
        return str(meta["client"])
    for result in analysis.turns:
        headers = {k.lower(): v for k, v in result.turn.exchange.request_headers.items()}
        for name in (CodexHeader.ORIGINATOR.value, "user-agent"):
            if headers.get(name, "").strip():
                return headers[name].split()[0]
    return None


def recording_spans(
    analysis: Analysis,
    *,
    content: ContentMode = "none",
    semconv: Semconv = DEFAULT,
    absolute_paths: bool = False,
) -> list[SpanSpec]:
    """A trace per thread: the session span first, then its requests in order."""
    meta = analysis.header.meta if analysis.header is not None else {}
    agent = agent_name(analysis)
    identity = str(meta.get("session_id") or meta.get("created_at") or Path(analysis.source).name)
    recording = analysis.source if absolute_paths else Path(analysis.source).name
    paths = Paths(None if absolute_paths else first_cwd(analysis))
    by_number = {r.turn.number: r for r in analysis.turns}
    spans: list[SpanSpec] = []
    for thread in analysis.threads:
        results = [by_number[t.number] for t in thread.turns if t.number in by_number]
        if not results:
            continue
        trace_key = f"ctxscope/{identity}/{thread.hint or thread.name}"
        root_key = f"{trace_key}/session"
        children = [_turn_span(r, trace_key, root_key, content, semconv, paths) for r in results]
        attributes: dict[str, AttrValue] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": "openai",
            "ctxscope.thread": thread.name,
            "ctxscope.recording": recording,
            "ctxscope.turns": len(results),
        }
        if agent is not None:
            attributes["gen_ai.agent.name"] = agent
        if thread.hint:
            attributes["gen_ai.conversation.id"] = thread.hint
        if thread.side:
            attributes["ctxscope.side"] = thread.side
        if thread.forked_from is not None:
            attributes["ctxscope.forked_from_turn"] = thread.forked_from
        failed = [c for c in children if c.error]
        if failed:
            attributes["error.type"] = "_OTHER"  # the session did not fail as such: some of its requests did
        spans.append(
            SpanSpec(
                name=f"invoke_agent {agent}" if agent else "invoke_agent",
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

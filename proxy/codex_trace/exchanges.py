"""A trace's requests as ctxscope exchanges: the request as Codex sent it, the answer reconstructed.

One exchange per `inference_started` … `inference_completed` pair. The request body is the inference
request payload as Codex holds it (over HTTP the body, over WebSocket the `response.create` frame with
only new items and `previous_response_id`). The answer has no stream bytes: `response` is built from
the response payload's `output_items` and `token_usage`, and `meta.codex_trace.reconstructed` says so.
A remote compaction (`compaction_request_started` … `_completed`) is an exchange too, its request
rebuilt as the wire carried it (`compaction.py`). Each exchange also carries the thread and agent it
belongs to (`thread_started`'s `agent_path`, a spawned agent's parent and nickname), its turn's
collaboration mode and its thread's source (from the protocol events), and the runtime of every tool
call its output asked for (command, cwd, start, end, exit status), from `tool_call_runtime_started` /
`…_ended`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..model import Exchange
from ..responses.vocabulary import MetadataKey
from .bundle import Bundle
from .compaction import NOT_IN_TRACE, compaction_body

__all__ = ["TRACE_MODE", "TraceImport", "bundle_exchanges", "responses_usage"]

THREAD = MetadataKey.THREAD_ID.value

TRACE_MODE = "codex-trace"
"""The recording header's `meta.mode`, and `meta.codex_trace.source` on each exchange."""


@dataclass
class TraceImport:
    """What one bundle gave: its exchanges (ids not yet assigned) and its sessions' metadata."""

    exchanges: list[Exchange]
    sessions: list[dict[str, Any]]


def responses_usage(token_usage: Any) -> dict[str, Any] | None:
    """Codex's `token_usage` as a Responses `usage` object (the names the API and the inspector use)."""
    if not isinstance(token_usage, dict):
        return None
    usage: dict[str, Any] = {
        "input_tokens": token_usage.get("input_tokens", 0),
        "input_tokens_details": {"cached_tokens": token_usage.get("cached_input_tokens", 0)},
        "output_tokens": token_usage.get("output_tokens", 0),
        "output_tokens_details": {"reasoning_tokens": token_usage.get("reasoning_output_tokens", 0)},
        "total_tokens": token_usage.get("total_tokens", 0),
    }
    return usage


def _host(provider: Any) -> str:
    """A provider name as a URL host (`OpenAI` → `openai`, `my local` → `my-local`)."""
    cleaned = re.sub(r"[^a-z0-9.-]+", "-", str(provider or "codex").lower()).strip("-.")
    return cleaned or "codex"


def _tool_run(started: Any, ended: Any, status: Any) -> dict[str, Any]:
    """One tool call's runtime, from its exec begin and end payloads (either may be missing)."""
    begin = started if isinstance(started, dict) else {}
    end = ended if isinstance(ended, dict) else {}
    run: dict[str, Any] = {}
    for key in ("command", "cwd", "process_id", "source", "new_thread_id", "new_agent_nickname"):
        if key in end or key in begin:
            run[key] = end.get(key, begin.get(key))
    if "started_at_ms" in begin:
        run["started_at_ms"] = begin["started_at_ms"]
    if "completed_at_ms" in end:
        run["ended_at_ms"] = end["completed_at_ms"]
    duration = end.get("duration")
    if isinstance(duration, dict):
        run["duration_ms"] = duration.get("secs", 0) * 1000 + duration.get("nanos", 0) / 1e6
    if "exit_code" in end:
        run["exit_code"] = end["exit_code"]
    if status is not None:
        run["status"] = status
    return run


def _subagent(meta: dict[str, Any]) -> dict[str, Any] | None:
    """A spawned agent's parent and name, from its session metadata's `session_source` (or None)."""
    source = meta.get("session_source")
    spawn = source.get("subagent", {}).get("thread_spawn") if isinstance(source, dict) else None
    if not isinstance(spawn, dict):
        return None
    found = {
        "parent_thread_id": spawn.get("parent_thread_id"),
        "depth": spawn.get("depth"),
        "nickname": spawn.get("agent_nickname") or meta.get("nickname"),
        "agent_role": spawn.get("agent_role") or meta.get("agent_role"),
    }
    return {k: v for k, v in found.items() if v is not None}


class _Reader:
    """One pass over a bundle's events: exchanges as their requests start, answers as they complete."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.agents: dict[str, dict[str, Any]] = {}
        self.sessions: list[dict[str, Any]] = []
        self.open_calls: dict[str, Exchange] = {}
        self.exchanges: list[Exchange] = []
        self.tool_names: dict[str, str] = {}
        self.runtime_start: dict[str, Any] = {}
        self.tool_runs: dict[str, dict[str, Any]] = {}
        self.last_request: dict[str, Exchange] = {}
        """Each thread's latest request: a compaction request is built on it."""
        self.contexts: dict[str, list[Any]] = {}
        """A response id → the whole input of its request plus its output (a chain rebuilt)."""
        self.compactions: list[tuple[Exchange, dict[str, Any], dict[str, Any], list[Any], Any]] = []
        """Compaction requests to build once all is read: the exchange, the trace's request payload, the
        thread's previous request, its context and its answer's id."""
        self.modes: dict[str, str] = {}
        """A Codex turn id → its collaboration mode (`task_started`'s `collaboration_mode_kind`)."""
        self.sources: dict[str, str] = {}
        """A thread id → what started it (`session_configured`'s `thread_source`: user, thread_title…)."""

    def protocol_event(self, p: dict[str, Any]) -> None:
        """The turn's collaboration mode and the thread's source, which no request body names as such."""
        if p.get("event_type") not in ("turn_started", "session_configured"):
            return
        event = self.bundle.payload(p.get("event_payload"))
        if not isinstance(event, dict):
            return
        kind = event.get("type")  # turn_started's payload is a `task_started`
        if kind == "task_started" and event.get("turn_id") and event.get("collaboration_mode_kind"):
            self.modes[str(event["turn_id"])] = str(event["collaboration_mode_kind"])
        elif kind == "session_configured" and event.get(THREAD) and event.get("thread_source"):
            self.sources[str(event[THREAD])] = str(event["thread_source"])

    def thread_started(self, p: dict[str, Any]) -> None:
        thread = str(p.get(MetadataKey.THREAD_ID.value))
        agent: dict[str, Any] = {"agent_path": str(p.get("agent_path", ""))}
        meta = self.bundle.payload(p.get("metadata_payload"))
        if isinstance(meta, dict):
            self.sessions.append(meta)
            spawned = _subagent(meta)
            if spawned:
                agent["subagent"] = spawned
        self.agents[thread] = agent

    def _exchange(self, p: dict[str, Any], event: dict[str, Any], body: dict[str, Any], **extra: Any) -> Exchange:
        thread = str(p.get(MetadataKey.THREAD_ID.value) or event.get(MetadataKey.THREAD_ID.value))
        websocket = body.get("type") == "response.create"
        agent = self.agents.get(thread, {})
        note = {
            "source": TRACE_MODE,
            "reconstructed": True,
            "trace_id": self.bundle.manifest.get("trace_id"),
            "rollout_id": self.bundle.manifest.get("rollout_id"),
            "schema_version": self.bundle.schema_version,
            MetadataKey.THREAD_ID.value: thread,
            "agent_path": agent.get("agent_path"),
            **({"subagent": agent["subagent"]} if "subagent" in agent else {}),
            "codex_turn_id": p.get("codex_turn_id"),
            **({"collaboration_mode": self.modes[turn]} if (turn := str(p.get("codex_turn_id"))) in self.modes else {}),
            **({"thread_source": self.sources[thread]} if thread in self.sources else {}),
            **extra,
            "provider_name": p.get("provider_name"),
        }
        at = float(event.get("wall_time_unix_ms", 0)) / 1000
        exchange = Exchange(
            id=0,
            started_at=at,
            method="GET" if websocket else "POST",
            # no wire, so no host: the URL names the trace and the provider Codex used
            url=f"{TRACE_MODE}://{_host(p.get('provider_name'))}/v1/responses",
            endpoint="websocket" if websocket else "responses",
            request_body=body,
            request_size=len(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()),
            meta={"transport": "websocket" if websocket else "http", "codex_trace": note},
        )
        self.exchanges.append(exchange)
        self.last_request[thread] = exchange
        return exchange

    def inference_started(self, p: dict[str, Any], event: dict[str, Any]) -> None:
        body = self.bundle.payload(p.get("request_payload"))
        if not isinstance(body, dict):
            self.bundle.problems.append(
                f"{self.bundle.path.name}: inference {p.get('inference_call_id')} has no readable request; skipped"
            )
            return
        exchange = self._exchange(p, event, body, inference_call_id=p.get("inference_call_id"))
        self.open_calls[str(p.get("inference_call_id"))] = exchange

    def compaction_started(self, p: dict[str, Any], event: dict[str, Any]) -> None:
        name = self.bundle.path.name
        request = self.bundle.payload(p.get("request_payload"))
        thread = str(p.get(MetadataKey.THREAD_ID.value) or event.get(MetadataKey.THREAD_ID.value))
        previous = self.last_request.get(thread)
        if not isinstance(request, dict) or previous is None:
            self.bundle.problems.append(
                f"{name}: compaction {p.get('compaction_id')} has no request to rebuild; skipped"
            )
            return
        answer = previous.response or {}
        context = self._whole_input(previous.request_body) + list(answer.get("output") or [])
        exchange = self._exchange(
            p, event, {}, kind="compaction", compaction_id=p.get("compaction_id"), not_in_trace=list(NOT_IN_TRACE)
        )
        # built once every request is read: whether the thread was on a socket may show only later
        self.compactions.append((exchange, request, previous.request_body, context, answer.get("id")))
        self.open_calls[str(p.get("compaction_request_id") or p.get("compaction_id"))] = exchange

    def _build_compactions(self) -> None:
        """Each compaction's request as sent (`compaction.compaction_body`); one that cannot be is dropped."""
        frames = {
            e.meta["codex_trace"][MetadataKey.THREAD_ID.value]
            for e in self.exchanges
            if e.request_body.get("type") == "response.create"
        }
        for exchange, request, previous, context, answer_id in self.compactions:
            socket = exchange.meta["codex_trace"][MetadataKey.THREAD_ID.value] in frames
            body = compaction_body(request, previous, context, answer_id, socket)
            if body is None:
                self.bundle.problems.append(
                    f"{self.bundle.path.name}: compaction {exchange.meta['codex_trace'].get('compaction_id')} "
                    "does not continue its thread's history; skipped"
                )
                self.exchanges.remove(exchange)
                continue
            frame = body.get("type") == "response.create"
            exchange.request_body = body
            exchange.request_size = len(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode())
            exchange.endpoint = "websocket" if frame else "responses"
            exchange.method = "GET" if frame else "POST"
            exchange.meta["transport"] = "websocket" if socket else "http"

    def _whole_input(self, body: dict[str, Any]) -> list[Any]:
        items = list(body.get("input") or [])
        previous = body.get("previous_response_id")
        return [*self.contexts.get(str(previous), []), *items] if previous else items

    def completed(self, p: dict[str, Any], event: dict[str, Any], key: str) -> None:
        exchange = self.open_calls.pop(str(p.get(key)), None)
        if exchange is None:
            return
        at = float(event.get("wall_time_unix_ms", 0)) / 1000
        exchange.ended_at = at
        exchange.duration_ms = (at - exchange.started_at) * 1000
        answer = self.bundle.payload(p.get("response_payload"))
        if not isinstance(answer, dict):
            exchange.meta["codex_trace"]["answer"] = "missing"
            return
        exchange.status = 200
        response: dict[str, Any] = {
            "id": answer.get("response_id") or p.get("response_id"),
            "object": "response",
            "model": exchange.request_body.get("model"),
            "status": "completed",
            "output": list(answer.get("output_items") or []),
        }
        if response["id"] is None:
            del response["id"]  # a compaction's answer: the trace keeps its items only
        usage = responses_usage(answer.get("token_usage"))
        if usage is not None:
            response["usage"] = usage
        exchange.response = response
        if p.get("upstream_request_id"):
            exchange.meta["codex_trace"]["upstream_request_id"] = p["upstream_request_id"]
        if response.get("id"):
            self.contexts[str(response["id"])] = self._whole_input(exchange.request_body) + response["output"]

    def tool_event(self, kind: str, p: dict[str, Any]) -> None:
        tid = str(p.get("tool_call_id"))
        if kind == "tool_call_started":
            self.tool_names[tid] = str(p.get("model_visible_call_id") or tid)
        elif kind == "tool_call_runtime_started":
            self.runtime_start[tid] = self.bundle.payload(p.get("runtime_payload"))
        elif kind == "tool_call_runtime_ended":
            self.tool_runs[self.tool_names.get(tid, tid)] = _tool_run(
                self.runtime_start.pop(tid, None), self.bundle.payload(p.get("runtime_payload")), p.get("status")
            )
        elif kind == "tool_call_ended":
            self.tool_runs.setdefault(self.tool_names.get(tid, tid), {})["call_status"] = p.get("status")

    def read(self) -> TraceImport:
        for event in self.bundle.events:
            p = event["payload"]
            kind = str(p.get("type"))
            if kind == "thread_started":
                self.thread_started(p)
            elif kind == "protocol_event_observed":
                self.protocol_event(p)
            elif kind == "inference_started":
                self.inference_started(p, event)
            elif kind == "inference_completed":
                self.completed(p, event, "inference_call_id")
            elif kind == "compaction_request_started":
                self.compaction_started(p, event)
            elif kind == "compaction_request_completed":
                self.completed(p, event, "compaction_request_id")
            elif kind.startswith("tool_call_"):
                self.tool_event(kind, p)
        self._build_compactions()
        for exchange in self.exchanges:
            for item in (exchange.response or {}).get("output", []):
                call_id = item.get("call_id") if isinstance(item, dict) else None
                if call_id in self.tool_runs:
                    runs = exchange.meta["codex_trace"].setdefault("tool_runs", {})
                    runs[call_id] = self.tool_runs[call_id]
        return TraceImport(self.exchanges, self.sessions)


def bundle_exchanges(bundle: Bundle) -> TraceImport:
    """The exchanges of `bundle`, in the order their requests started (inferences and compactions)."""
    return _Reader(bundle).read()

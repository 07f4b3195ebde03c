"""A trace's inferences as ctxscope exchanges: the request as Codex sent it, the answer reconstructed.

One exchange per `inference_started` … `inference_completed` pair. The request body is the inference
request payload as Codex holds it (over HTTP the body, over WebSocket the `response.create` frame with
only new items and `previous_response_id`). The answer has no stream bytes: `response` is built from
the response payload's `output_items` and `token_usage`, and `meta.codex_trace.reconstructed` says so.
Each exchange also carries the thread and agent it belongs to (`thread_started`'s `agent_path`), the
session's metadata, and the runtime of every tool call its output asked for (command, cwd, start, end,
exit status), from `tool_call_runtime_started` / `…_ended`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..model import Exchange
from ..responses.vocabulary import MetadataKey
from .bundle import Bundle

__all__ = ["TRACE_MODE", "TraceImport", "bundle_exchanges", "responses_usage"]

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
    for key in ("command", "cwd", "process_id", "source"):
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


def bundle_exchanges(bundle: Bundle) -> TraceImport:
    """The exchanges of `bundle`, in the order its inferences started."""
    agents: dict[str, str] = {}
    sessions: list[dict[str, Any]] = []
    open_calls: dict[str, tuple[dict[str, Any], Exchange]] = {}
    exchanges: list[Exchange] = []
    tool_names: dict[str, str] = {}
    runtime_start: dict[str, Any] = {}
    tool_runs: dict[str, dict[str, Any]] = {}
    for event in bundle.events:
        p = event["payload"]
        kind = p.get("type")
        at = float(event.get("wall_time_unix_ms", 0)) / 1000
        if kind == "thread_started":
            thread = str(p.get(MetadataKey.THREAD_ID.value))
            agents[thread] = str(p.get("agent_path", ""))
            meta = bundle.payload(p.get("metadata_payload"))
            if isinstance(meta, dict):
                sessions.append(meta)
        elif kind == "inference_started":
            body = bundle.payload(p.get("request_payload"))
            if not isinstance(body, dict):
                bundle.problems.append(
                    f"{bundle.path.name}: inference {p.get('inference_call_id')} has no readable request; skipped"
                )
                continue
            thread = str(p.get(MetadataKey.THREAD_ID.value) or event.get(MetadataKey.THREAD_ID.value))
            websocket = body.get("type") == "response.create"
            note = {
                "source": TRACE_MODE,
                "reconstructed": True,
                "trace_id": bundle.manifest.get("trace_id"),
                "rollout_id": bundle.manifest.get("rollout_id"),
                "schema_version": bundle.schema_version,
                MetadataKey.THREAD_ID.value: thread,
                "agent_path": agents.get(thread),
                "codex_turn_id": p.get("codex_turn_id"),
                "inference_call_id": p.get("inference_call_id"),
                "provider_name": p.get("provider_name"),
            }
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
            open_calls[str(p.get("inference_call_id"))] = (p, exchange)
            exchanges.append(exchange)
        elif kind == "inference_completed":
            started = open_calls.pop(str(p.get("inference_call_id")), None)
            if started is None:
                continue
            exchange = started[1]
            exchange.ended_at = at
            exchange.duration_ms = (at - exchange.started_at) * 1000
            answer = bundle.payload(p.get("response_payload"))
            if not isinstance(answer, dict):
                exchange.meta["codex_trace"]["answer"] = "missing"
                continue
            exchange.status = 200
            response: dict[str, Any] = {
                "id": answer.get("response_id") or p.get("response_id"),
                "object": "response",
                "model": exchange.request_body.get("model"),
                "status": "completed",
                "output": list(answer.get("output_items") or []),
            }
            usage = responses_usage(answer.get("token_usage"))
            if usage is not None:
                response["usage"] = usage
            exchange.response = response
            if p.get("upstream_request_id"):
                exchange.meta["codex_trace"]["upstream_request_id"] = p["upstream_request_id"]
        elif kind == "tool_call_started":
            call = str(p.get("model_visible_call_id") or p.get("tool_call_id"))
            tool_names[str(p.get("tool_call_id"))] = call
        elif kind == "tool_call_runtime_started":
            runtime_start[str(p.get("tool_call_id"))] = bundle.payload(p.get("runtime_payload"))
        elif kind == "tool_call_runtime_ended":
            tid = str(p.get("tool_call_id"))
            tool_runs[tool_names.get(tid, tid)] = _tool_run(
                runtime_start.pop(tid, None), bundle.payload(p.get("runtime_payload")), p.get("status")
            )
        elif kind == "tool_call_ended":
            tid = str(p.get("tool_call_id"))
            call = tool_names.get(tid, tid)
            tool_runs.setdefault(call, {})["call_status"] = p.get("status")
    for exchange in exchanges:
        for item in (exchange.response or {}).get("output", []):
            call_id = item.get("call_id") if isinstance(item, dict) else None
            if call_id in tool_runs:
                runs = exchange.meta["codex_trace"].setdefault("tool_runs", {})
                runs[call_id] = tool_runs[call_id]
    return TraceImport(exchanges, sessions)

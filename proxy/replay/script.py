"""Script cassettes: a hand-written list of model responses, rendered as Codex-wire SSE streams.

The offline "model" for demos and tests. A script is a JSON file (see docs/cassettes.md):

    {"format": "ctxscope-script", "version": 1, "model": "gpt-5-codex",
     "responses": [
       {"text": "Hello."},
       {"output": [{"reasoning": "Look first."},
                   {"function_call": {"name": "exec_command", "arguments": {"cmd": "ls"}}}],
        "usage": {"input_tokens": 1200, "output_tokens": 30}},
       {"custom_tool_call": {"name": "apply_patch", "input": "*** Begin Patch\\n*** End Patch"}},
       {"fail": {"code": "context_length_exceeded", "message": "too long"}},
       {"http_status": 429, "body": {"error": {"message": "slow down"}}, "headers": {"retry-after": "1"}}
     ],
     "endpoints": [{"method": "GET", "path": "/v1/models", "body": {"data": []}}]}

A bare JSON list is read as `responses`. Each response is served, in order, to the next model request
(`POST …/responses`; `…/responses/compact` gets the same items as a JSON `{"output": [...]}`).
Ids are deterministic (`resp_0001`, `msg_0001_0`, `call_0001_1`, ...), so replays are repeatable;
usage defaults to an estimate from the live request size (about 4 characters per token) unless given.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proxy.errors import RecordingError

__all__ = ["SCRIPT_FORMAT", "Script", "ScriptResponse", "parse_script", "read_script", "looks_like_script"]

SCRIPT_FORMAT = "ctxscope-script"
SCRIPT_VERSION = 1
_ITEM_KEYS = ("text", "reasoning", "function_call", "custom_tool_call")
_RESPONSE_KEYS = frozenset(
    {"output", "usage", "id", "model", "fail", "incomplete", "http_status", "body", "headers", "cut"}
    | {"chunks", "pace_ms", "note"}
)
DEFAULT_PACE_MS = 15.0


@dataclass
class ScriptResponse:
    """One scripted answer: output items plus how the response ends."""

    index: int
    items: list[dict[str, Any]]
    """Normalised items: {"text": str} | {"reasoning": [str]} | {"function_call": {...}} | ..."""
    usage: dict[str, Any] | None = None
    response_id: str | None = None
    model: str | None = None
    fail: dict[str, str] | None = None
    incomplete: str | None = None
    http_status: int | None = None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    cut: bool = False
    chunks: int = 3
    pace_ms: float = DEFAULT_PACE_MS

    def events(self, request_body: Any, default_model: str, now: float | None = None) -> list[dict[str, Any]]:
        """The SSE events (parsed `data` objects, in order) answering `request_body`."""
        return _Renderer(self, request_body, default_model, now).events()

    def output_items(self, default_model: str) -> list[dict[str, Any]]:
        """The finished output items (what `response.completed` carries), e.g. for /responses/compact."""
        return [
            e["item"] for e in self.events(None, default_model) if e["type"] == "response.output_item.done"
        ]


@dataclass
class Script:
    """A parsed script cassette."""

    responses: list[ScriptResponse]
    model: str = "gpt-5-codex"
    endpoints: list[dict[str, Any]] = field(default_factory=list)
    """Non-model answers: {"method", "path", "status"?, "body"?, "headers"?}."""


def looks_like_script(value: Any) -> bool:
    """True if a parsed JSON document is a script cassette (the object form or a bare list)."""
    if isinstance(value, dict):
        return value.get("format") == SCRIPT_FORMAT
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


def read_script(path: Path) -> Script:
    """Load a script cassette file; `RecordingError` with a one-line message if it is malformed."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise RecordingError(f"cannot read script cassette {path}: {err}") from err
    except ValueError as err:
        raise RecordingError(
            f"{path} is not valid JSON ({err}); a script cassette is one JSON document"
        ) from err
    return parse_script(document, source=str(path))


def parse_script(document: Any, source: str = "script") -> Script:
    """Validate a script document (dict form or bare list of responses) and return a `Script`."""
    if isinstance(document, list):
        document = {"format": SCRIPT_FORMAT, "responses": document}
    if not isinstance(document, dict) or document.get("format") != SCRIPT_FORMAT:
        raise RecordingError(
            f'{source}: not a script cassette (expected {{"format": "{SCRIPT_FORMAT}", ...}})'
        )
    version = document.get("version", SCRIPT_VERSION)
    if not isinstance(version, int) or version > SCRIPT_VERSION:
        raise RecordingError(
            f"{source}: script version {version!r} is newer than this ctxscope reads ({SCRIPT_VERSION}); "
            "upgrade ctxscope"
        )
    raw = document.get("responses")
    if not isinstance(raw, list) or not raw:
        raise RecordingError(f'{source}: "responses" must be a non-empty list of responses')
    responses = [_parse_response(entry, i, f"{source}: responses[{i}]") for i, entry in enumerate(raw)]
    endpoints = document.get("endpoints", [])
    if not isinstance(endpoints, list) or not all(
        isinstance(e, dict) and isinstance(e.get("path"), str) for e in endpoints
    ):
        raise RecordingError(f'{source}: "endpoints" must be a list of {{"method", "path", "body"}} objects')
    model = document.get("model", "gpt-5-codex")
    return Script(responses=responses, model=str(model), endpoints=endpoints)


def _parse_response(entry: Any, index: int, where: str) -> ScriptResponse:
    if isinstance(entry, str):
        entry = {"text": entry}
    if not isinstance(entry, dict):
        raise RecordingError(
            f'{where}: expected an object such as {{"text": "..."}}, got {type(entry).__name__}'
        )
    unknown = set(entry) - _RESPONSE_KEYS - set(_ITEM_KEYS)
    if unknown:
        raise RecordingError(
            f"{where}: unknown key {sorted(unknown)[0]!r} "
            f"(expected items {', '.join(_ITEM_KEYS)} or output, usage, fail, http_status, ...)"
        )
    shorthand = [k for k in _ITEM_KEYS if k in entry]
    if shorthand and "output" in entry:
        raise RecordingError(f'{where}: use either {shorthand[0]!r} or "output": [...], not both')
    raw_items = entry.get("output", [{k: entry[k]} for k in shorthand])
    if not isinstance(raw_items, list):
        raise RecordingError(f'{where}: "output" must be a list of items')
    items = [_parse_item(item, f"{where}.output[{i}]") for i, item in enumerate(raw_items)]
    terminal = [k for k in ("fail", "incomplete", "http_status") if k in entry]
    if not items and not terminal:
        raise RecordingError(
            f"{where}: a response needs at least one item (text, function_call, ...) or a failure"
        )
    if len(terminal) > 1:
        raise RecordingError(f"{where}: choose one of fail, incomplete, http_status")
    fail = entry.get("fail")
    if fail is not None:
        if isinstance(fail, str):
            fail = {"code": fail, "message": fail.replace("_", " ")}
        if not isinstance(fail, dict) or not isinstance(fail.get("code"), str):
            raise RecordingError(f'{where}: "fail" must be {{"code": "...", "message": "..."}}')
        fail = {"code": fail["code"], "message": str(fail.get("message", fail["code"]))}
    status = entry.get("http_status")
    if status is not None and (not isinstance(status, int) or not 100 <= status <= 599):
        raise RecordingError(f'{where}: "http_status" must be an HTTP status code')
    usage = entry.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise RecordingError(f'{where}: "usage" must be an object such as {{"input_tokens": 100}}')
    headers = entry.get("headers", {})
    if not isinstance(headers, dict):
        raise RecordingError(f'{where}: "headers" must be an object of strings')
    return ScriptResponse(
        index=index,
        items=items,
        usage=usage,
        response_id=entry.get("id"),
        model=entry.get("model"),
        fail=fail,
        incomplete=entry.get("incomplete"),
        http_status=status,
        body=entry.get("body"),
        headers={str(k): str(v) for k, v in headers.items()},
        cut=bool(entry.get("cut", False)),
        chunks=max(1, int(entry.get("chunks", 3))),
        pace_ms=float(entry.get("pace_ms", DEFAULT_PACE_MS)),
    )


def _parse_item(item: Any, where: str) -> dict[str, Any]:
    if isinstance(item, str):
        return {"text": item}
    if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in _ITEM_KEYS:
        raise RecordingError(f"{where}: an item is one of {{{', '.join(_ITEM_KEYS)}: ...}}")
    kind, value = next(iter(item.items()))
    if kind == "text":
        if not isinstance(value, str):
            raise RecordingError(f'{where}: "text" must be a string')
        return {"text": value}
    if kind == "reasoning":
        parts = [value] if isinstance(value, str) else value
        if not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
            raise RecordingError(f'{where}: "reasoning" must be a summary string or a list of strings')
        return {"reasoning": [p for p in parts if p]}
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise RecordingError(f'{where}: "{kind}" needs at least a "name"')
    if kind == "function_call":
        args = value.get("arguments", {})
        if not isinstance(args, str):
            args = json.dumps(args)
        return {kind: {**value, "arguments": args}}
    if not isinstance(value.get("input", ""), str):
        raise RecordingError(f'{where}: custom_tool_call "input" must be a string')
    return {kind: {**value, "input": value.get("input", "")}}


def _split(text: str, chunks: int) -> list[str]:
    """Split text into about `chunks` deltas (at least one, even for empty text)."""
    if chunks <= 1 or len(text) <= 1:
        return [text]
    size = -(-len(text) // chunks)
    return [text[i : i + size] for i in range(0, len(text), size)]


def estimate_tokens(value: Any) -> int:
    """A rough token count (4 characters per token) used when a script gives no usage."""
    if value is None:
        return 0
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return max(1, len(text) // 4)


class _Renderer:
    """Builds the event list of one scripted response, numbering events and output indexes."""

    def __init__(
        self, spec: ScriptResponse, request_body: Any, default_model: str, now: float | None
    ) -> None:
        self.spec = spec
        self.request_body = request_body
        self.n = spec.index + 1
        self.rid = spec.response_id or f"resp_{self.n:04d}"
        self.model = (
            spec.model
            or (request_body.get("model") if isinstance(request_body, dict) else None)
            or default_model
        )
        self.created_at = int(now if now is not None else time.time())
        self.out: list[dict[str, Any]] = []
        self.done_items: list[dict[str, Any]] = []

    def _base(self, status: str) -> dict[str, Any]:
        return {
            "id": self.rid,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "model": self.model,
            "output": [],
            "usage": None,
            "error": None,
            "incomplete_details": None,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }

    def emit(self, event: dict[str, Any]) -> None:
        self.out.append({"type": event.pop("type"), "sequence_number": len(self.out), **event})

    def events(self) -> list[dict[str, Any]]:
        self.emit({"type": "response.created", "response": self._base("in_progress")})
        self.emit({"type": "response.in_progress", "response": self._base("in_progress")})
        for index, item in enumerate(self.spec.items):
            kind, value = next(iter(item.items()))
            getattr(self, f"_{kind}")(index, value)
        if self.spec.cut:
            return self.out  # the stream is dropped before its terminal event
        final = {**self._base("completed"), "output": self.done_items}
        if self.spec.fail is not None:
            final.update(status="failed", error=self.spec.fail)
            self.emit({"type": "response.failed", "response": final})
        elif self.spec.incomplete is not None:
            final.update(status="incomplete", incomplete_details={"reason": self.spec.incomplete})
            self.emit({"type": "response.incomplete", "response": final})
        else:
            final["usage"] = self._usage()
            self.emit({"type": "response.completed", "response": final})
        return self.out

    def _usage(self) -> dict[str, Any]:
        output_text = json.dumps(self.done_items, ensure_ascii=False)
        given = self.spec.usage or {}
        inp = int(given.get("input_tokens", estimate_tokens(self.request_body)))
        out = int(given.get("output_tokens", estimate_tokens(output_text)))
        cached = int(
            given.get("cached_tokens", given.get("input_tokens_details", {}).get("cached_tokens", 0))
        )
        reasoning = int(
            given.get("reasoning_tokens", given.get("output_tokens_details", {}).get("reasoning_tokens", 0))
        )
        return {
            "input_tokens": inp,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": out,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": int(given.get("total_tokens", inp + out)),
        }

    def _added_done(
        self, index: int, started: dict[str, Any], done: dict[str, Any], middle: list[dict[str, Any]]
    ) -> None:
        self.emit({"type": "response.output_item.added", "output_index": index, "item": started})
        for event in middle:
            self.emit({**event, "output_index": index})
        self.emit({"type": "response.output_item.done", "output_index": index, "item": done})
        self.done_items.append(done)

    def _text(self, index: int, text: str) -> None:
        item_id = f"msg_{self.n:04d}_{index}"
        part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
        done = {
            "id": item_id,
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [part],
        }
        ref = {"item_id": item_id, "content_index": 0}
        middle: list[dict[str, Any]] = [
            {"type": "response.content_part.added", **ref, "part": {**part, "text": ""}},
            *(
                {"type": "response.output_text.delta", **ref, "delta": piece, "logprobs": []}
                for piece in _split(text, self.spec.chunks)
            ),
            {"type": "response.output_text.done", **ref, "text": text, "logprobs": []},
            {"type": "response.content_part.done", **ref, "part": part},
        ]
        self._added_done(index, {**done, "status": "in_progress", "content": []}, done, middle)

    def _reasoning(self, index: int, summary: list[str]) -> None:
        item_id = f"rs_{self.n:04d}_{index}"
        parts = [{"type": "summary_text", "text": s} for s in summary]
        done = {
            "id": item_id,
            "type": "reasoning",
            "summary": parts,
            "encrypted_content": f"script-reasoning-{self.n:04d}-{index}",
        }
        middle: list[dict[str, Any]] = []
        for s_index, text in enumerate(summary):
            ref = {"item_id": item_id, "summary_index": s_index}
            middle.append(
                {
                    "type": "response.reasoning_summary_part.added",
                    **ref,
                    "part": {"type": "summary_text", "text": ""},
                }
            )
            middle += [
                {"type": "response.reasoning_summary_text.delta", **ref, "delta": piece}
                for piece in _split(text, self.spec.chunks)
            ]
            middle.append({"type": "response.reasoning_summary_text.done", **ref, "text": text})
            middle.append({"type": "response.reasoning_summary_part.done", **ref, "part": parts[s_index]})
        self._added_done(index, {**done, "summary": []}, done, middle)

    def _function_call(self, index: int, spec: dict[str, Any]) -> None:
        item_id = f"fc_{self.n:04d}_{index}"
        args: str = spec["arguments"]
        done: dict[str, Any] = {
            "id": item_id,
            "type": "function_call",
            "status": "completed",
            "name": spec["name"],
            "arguments": args,
            "call_id": spec.get("call_id") or f"call_{self.n:04d}_{index}",
        }
        if spec.get("namespace"):
            done["namespace"] = spec["namespace"]
        ref = {"item_id": item_id}
        middle: list[dict[str, Any]] = [
            {"type": "response.function_call_arguments.delta", **ref, "delta": piece}
            for piece in _split(args, self.spec.chunks)
        ]
        middle.append({"type": "response.function_call_arguments.done", **ref, "arguments": args})
        self._added_done(index, {**done, "status": "in_progress", "arguments": ""}, done, middle)

    def _custom_tool_call(self, index: int, spec: dict[str, Any]) -> None:
        item_id = f"ctc_{self.n:04d}_{index}"
        text: str = spec["input"]
        done = {
            "id": item_id,
            "type": "custom_tool_call",
            "status": "completed",
            "name": spec["name"],
            "input": text,
            "call_id": spec.get("call_id") or f"call_{self.n:04d}_{index}",
        }
        ref = {"item_id": item_id}
        middle: list[dict[str, Any]] = [
            {"type": "response.custom_tool_call_input.delta", **ref, "delta": piece}
            for piece in _split(text, self.spec.chunks)
        ]
        middle.append({"type": "response.custom_tool_call_input.done", **ref, "input": text})
        self._added_done(index, {**done, "status": "in_progress", "input": ""}, done, middle)

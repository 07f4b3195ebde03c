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

from ctxscope.proxy.errors import RecordingError
from ctxscope.proxy.responses.builders import (
    custom_tool_call,
    function_call,
    reasoning,
    response_stream,
    text_message,
)

__all__ = [
    "SCRIPT_FORMAT",
    "Script",
    "ScriptResponse",
    "estimate_tokens",
    "looks_like_script",
    "parse_script",
    "read_script",
]

SCRIPT_FORMAT = "ctxscope-script"
SCRIPT_VERSION = 1
_ITEM_KEYS = ("text", "reasoning", "function_call", "custom_tool_call", "item")
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
        """The SSE events (parsed `data` objects, in order) answering `request_body`.

        Ids are deterministic: `resp_0001`, and per item `msg_0001_0`, `fc_0001_1`, `call_0001_1`, ...
        """
        n = self.index + 1
        model = (
            self.model
            or (request_body.get("model") if isinstance(request_body, dict) else None)
            or default_model
        )
        items = [self._item_events(n, index, item) for index, item in enumerate(self.items)]

        def scripted_usage(done_items: list[dict[str, Any]]) -> dict[str, Any]:
            return _usage(self.usage or {}, request_body, done_items)

        return response_stream(
            *items,
            model=model,
            response_id=self.response_id or f"resp_{n:04d}",
            usage=scripted_usage,
            failed=(self.fail["code"], self.fail["message"]) if self.fail is not None else None,
            incomplete=self.incomplete,
            cut=self.cut,
            created_at=int(now if now is not None else time.time()),
        )

    def _item_events(self, n: int, index: int, item: dict[str, Any]) -> list[dict[str, Any]]:
        kind, value = next(iter(item.items()))
        suffix = f"{n:04d}_{index}"
        if kind == "text":
            return text_message(value, self.chunks, item_id=f"msg_{suffix}")
        if kind == "reasoning":
            encrypted = f"script-reasoning-{n:04d}-{index}"
            return reasoning(value, encrypted, self.chunks, item_id=f"rs_{suffix}")
        if kind == "item":
            # Any other output item verbatim (a remote compaction's `compaction` item, ...).
            done = {"id": f"item_{suffix}", **value}
            return [
                {"type": "response.output_item.added", "item": done},
                {"type": "response.output_item.done", "item": done},
            ]
        call_id = value.get("call_id") or f"call_{suffix}"
        if kind == "function_call":
            return function_call(
                value["name"],
                value["arguments"],
                call_id,
                self.chunks,
                item_id=f"fc_{suffix}",
                namespace=value.get("namespace"),
            )
        return custom_tool_call(value["name"], value["input"], call_id, self.chunks, item_id=f"ctc_{suffix}")

    def output_items(self, default_model: str) -> list[dict[str, Any]]:
        """The finished output items (what `response.completed` carries), e.g. for /responses/compact."""
        return [
            e["item"] for e in self.events(None, default_model) if e["type"] == "response.output_item.done"
        ]


def estimate_tokens(value: Any) -> int:
    """A rough token count (4 characters per token) used when a script gives no usage."""
    if value is None:
        return 0
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return max(1, len(text) // 4)


def _usage(given: dict[str, Any], request_body: Any, done_items: list[dict[str, Any]]) -> dict[str, Any]:
    """The script's usage, estimated from the live request and the output where it gives none."""
    output_text = json.dumps(done_items, ensure_ascii=False)
    inp = int(given.get("input_tokens", estimate_tokens(request_body)))
    out = int(given.get("output_tokens", estimate_tokens(output_text)))
    cached = int(given.get("cached_tokens", given.get("input_tokens_details", {}).get("cached_tokens", 0)))
    reasoning_tokens = int(
        given.get("reasoning_tokens", given.get("output_tokens_details", {}).get("reasoning_tokens", 0))
    )
    return {
        "input_tokens": inp,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": int(given.get("total_tokens", inp + out)),
    }


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
    if not path.is_file():  # /dev/zero, a FIFO: a read that may never end
        raise RecordingError(f"{path} does not exist or is not a regular file; give a script cassette")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise RecordingError(f"cannot read script cassette {path}: {err}") from err
    except RecursionError:
        raise RecordingError(f"{path}: JSON nested too deeply for a script cassette") from None
    except ValueError as err:
        raise RecordingError(
            f"{path} is not valid JSON ({err}); a script cassette is one JSON document"
        ) from err
    return parse_script(document, source=str(path))


def parse_script(document: Any, source: str = "script") -> Script:
    """Validate a script document (dict form or bare list of responses) and return a `Script`."""
    if isinstance(document, list):
        document = {"format": SCRIPT_FORMAT, "responses": document}
    try:  # strings are sent as UTF-8: a lone surrogate (`"\ud800"`) would fail mid-replay
        json.dumps(document, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as err:
        raise RecordingError(f"{source}: a string holds a lone surrogate ({err.reason}); fix it") from None
    except (RecursionError, ValueError):
        raise RecordingError(f"{source}: nested too deeply for a script cassette") from None
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
    if usage is not None and not _valid_usage(usage):
        raise RecordingError(
            f'{where}: "usage" must be an object of token counts such as {{"input_tokens": 100}}'
        )
    for key, kind in (("id", str), ("model", str), ("chunks", int), ("pace_ms", int | float)):
        value = entry.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            expected = "a string" if kind is str else "a number"
            raise RecordingError(f'{where}: "{key}" must be {expected}, not {value!r}'[:200])
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


def _valid_usage(usage: Any) -> bool:
    """Token counts: non-negative numbers, or objects of them (`input_tokens_details`)."""
    if not isinstance(usage, dict):
        return False
    for value in usage.values():
        if isinstance(value, dict):
            if not _valid_usage(value):
                return False
        elif isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            return False
    return True


def _parse_item(item: Any, where: str) -> dict[str, Any]:
    if isinstance(item, str):
        return {"text": item}
    if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in _ITEM_KEYS:
        raise RecordingError(f"{where}: an item is one of {{{', '.join(_ITEM_KEYS)}: ...}}")
    kind, value = next(iter(item.items()))
    if kind == "item":
        # Any other output item verbatim (a remote compaction's `compaction` item, ...).
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            raise RecordingError(f'{where}: "item" must be an output item object with a "type"')
        return {"item": dict(value)}
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

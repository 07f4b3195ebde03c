"""Rendering one scripted response as Codex-wire SSE events (see `script.py` for the format).

`render_events(spec, request_body, default_model)` returns the parsed `data` objects in order:
`response.created`, `response.in_progress`, per item `response.output_item.added`, its deltas and
`.done` events, `response.output_item.done`, then `response.completed` (with `usage` and the finished
`output`), `response.failed` or `response.incomplete` — or nothing after the items for a cut stream.
Every event carries `sequence_number`; item events carry `output_index`. Ids are deterministic.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from proxy.replay.script import ScriptResponse

__all__ = ["render_events", "estimate_tokens"]


def render_events(
    spec: ScriptResponse, request_body: Any, default_model: str, now: float | None = None
) -> list[dict[str, Any]]:
    """The SSE events (parsed `data` objects) answering `request_body` with `spec`."""
    return _Renderer(spec, request_body, default_model, now).events()


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

    def _item(self, index: int, value: dict[str, Any]) -> None:
        """An output item given verbatim (ids assigned like the others when missing)."""
        done = {"id": f"item_{self.n:04d}_{index}", **value}
        self._added_done(index, done, done, [])

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

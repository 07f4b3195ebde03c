"""What a model answered, item by item, in a form two answers can be set side by side.

A recorded turn's answer and a fresh answer to the same (or an edited) request are compared by what
a person cares about: which tool was called with which arguments, what text came back, whether the
model reasoned, and the usage. Ids and encrypted reasoning are left out: they differ on every call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Answer", "AnswerStep", "answer_of"]

_TEXT_LIMIT = 160


@dataclass(frozen=True)
class AnswerStep:
    """One output item: its kind (`message`, `function_call exec_command`, `reasoning`, …) and gist."""

    kind: str
    gist: str

    def line(self) -> str:
        return f"{self.kind} {self.gist}".rstrip()


@dataclass
class Answer:
    """A response's output items, status and usage."""

    steps: list[AnswerStep] = field(default_factory=list)
    status: str = "completed"
    usage: dict[str, Any] | None = None

    @property
    def shape(self) -> list[str]:
        """The kinds of the steps in order: what two answers must share to count as the same move."""
        return [s.kind for s in self.steps]

    def usage_line(self) -> str:
        if not self.usage:
            return "usage not reported"
        details = self.usage.get("input_tokens_details") or {}
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        cached_text = f" ({cached:,} cached)" if _is_count(cached) else ""
        return (
            f"input {_count(self.usage.get('input_tokens', 0))}{cached_text}, "
            f"output {_count(self.usage.get('output_tokens', 0))} tokens"
        )


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _count(value: Any) -> str:
    """A token count as `1,234`; anything else a recording holds there (`"lots"`) shown as written."""
    return f"{value:,}" if _is_count(value) else repr(value)


def _short(text: str, limit: int = _TEXT_LIMIT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _arguments(raw: Any) -> str:
    """Tool arguments as compact JSON (a JSON string is parsed first, so key spacing never differs)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return _short(raw)
    return _short(json.dumps(raw, ensure_ascii=False, separators=(", ", ": ")))


def _message_text(item: dict[str, Any]) -> str:
    parts = item.get("content") or []
    return "".join(str(p.get("text") or p.get("refusal") or "") for p in parts if isinstance(p, dict))


def _step(item: Any) -> AnswerStep:
    if not isinstance(item, dict):
        return AnswerStep("unknown", _short(str(item)))
    kind = str(item.get("type", "unknown"))
    if kind == "message":
        return AnswerStep("message", json.dumps(_short(_message_text(item)), ensure_ascii=False))
    if kind == "function_call":
        return AnswerStep(f"function_call {item.get('name', '?')}", _arguments(item.get("arguments", "")))
    if kind == "custom_tool_call":
        return AnswerStep(f"custom_tool_call {item.get('name', '?')}", _short(str(item.get("input", ""))))
    if kind == "reasoning":
        summary = " ".join(str(p.get("text", "")) for p in item.get("summary") or [] if isinstance(p, dict))
        return AnswerStep("reasoning", json.dumps(_short(summary), ensure_ascii=False) if summary else "")
    return AnswerStep(kind, "")


def answer_of(output: Any, *, status: str = "completed", usage: Any = None) -> Answer:
    """The answer held in a response's `output` list."""
    items = output if isinstance(output, list) else []
    return Answer(
        steps=[_step(item) for item in items],
        status=status,
        usage=usage if isinstance(usage, dict) else None,
    )

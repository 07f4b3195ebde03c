"""What a model answered, item by item: the answer that belongs to a turn, and the form in which two
answers are set side by side.

Every view reads this one definition: the turn documents of the analysis (`TurnAnalysis.answer`),
the report's `answer` section, the TUI, the exports and `ctxscope resend`, which compares a recorded
answer with fresh ones by what a person cares about: which tool was called with which arguments,
what text came back, whether the model reasoned, the usage. Ids and encrypted reasoning are left
out: they differ on every call.

A turn's status is one of five words (`ANSWER_STATUSES`): `completed`, `incomplete` (the response
said so, or was cancelled), `failed` (the response said so), `error` (an HTTP error answer) and `cut`
(no terminal event: the stream or connection ended first).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ctxscope.harness.modes.plan.parser import split_proposed_plan
from ctxscope.inspector.analysis.turns import Turn

__all__ = [
    "ANSWER_STATUSES",
    "Answer",
    "AnswerItem",
    "AnswerStatus",
    "AnswerStep",
    "ToolRun",
    "answer_of",
    "answer_status",
    "tool_run_of",
    "turn_answer",
]

AnswerStatus = Literal["completed", "incomplete", "failed", "error", "cut"]
ANSWER_STATUSES: tuple[AnswerStatus, ...] = ("completed", "incomplete", "failed", "error", "cut")

_TEXT_LIMIT = 160
_TOOL_CALLS = ("function_call", "custom_tool_call")


@dataclass(frozen=True)
class AnswerStep:
    """One output item in short: its kind (`message`, `function_call exec_command`, …) and gist."""

    kind: str
    gist: str

    def line(self) -> str:
        return f"{self.kind} {self.gist}".rstrip()


@dataclass(frozen=True)
class ToolRun:
    """How a tool call ran on the client's machine: known only from the client's own trace (an
    import of Codex's rollout trace), never from the wire."""

    duration_ms: float | None = None
    exit_code: int | None = None
    status: str | None = None
    """The runtime's status (`completed`, `failed`, …)."""

    def line(self) -> str:
        """`12 ms, exit 0` (a status other than `completed` is named); "" when nothing is known."""
        bits = []
        if self.duration_ms is not None:
            bits.append(f"{self.duration_ms:,.0f} ms" if self.duration_ms >= 1 else "<1 ms")
        if self.exit_code is not None:
            bits.append(f"exit {self.exit_code}")
        if self.status and self.status != "completed":
            bits.append(self.status)
        return ", ".join(bits)


def tool_run_of(raw: Any) -> ToolRun | None:
    """A `meta.codex_trace.tool_runs` entry (docs/recording-format.md) as a `ToolRun`."""
    if not isinstance(raw, dict):
        return None
    duration = raw.get("duration_ms")
    if not isinstance(duration, int | float) and isinstance(raw.get("ended_at_ms"), int | float):
        started = raw.get("started_at_ms")
        duration = raw["ended_at_ms"] - started if isinstance(started, int | float) else None
    code = raw.get("exit_code")
    status = raw.get("status")
    return ToolRun(
        duration_ms=float(duration) if isinstance(duration, int | float) else None,
        exit_code=code if isinstance(code, int) else None,
        status=status if isinstance(status, str) else None,
    )


@dataclass(frozen=True)
class AnswerItem:
    """One output item in full (what the model produced, without ids or encrypted content)."""

    type: str
    """The wire type: `message`, `reasoning`, `function_call`, `custom_tool_call`, `web_search_call`, …"""
    name: str | None = None
    """A tool call's tool name (with its namespace, `ns.tool`)."""
    text: str | None = None
    """A message's visible text (a `<proposed_plan>` block taken out), or a reasoning summary."""
    arguments: str | None = None
    """A function call's arguments as sent (JSON text), or a custom tool call's input."""
    plan: str | None = None
    """The Markdown of a `<proposed_plan>` block in a message."""
    call_id: str | None = None
    run: ToolRun | None = None
    """How the client ran this tool call, where its own trace says (`ctxscope import codex-trace`)."""

    @property
    def kind(self) -> str:
        """`message`, `reasoning`, `function_call exec_command`: the item's type and tool name."""
        return f"{self.type} {self.name or '?'}" if self.type in _TOOL_CALLS else self.type

    @property
    def step(self) -> AnswerStep:
        """The item in short (one line); a tool call the client's trace timed says how it ran."""
        step = self._step
        if self.run is not None and self.run.line():
            return AnswerStep(step.kind, f"{step.gist} [ran {self.run.line()}]".strip())
        return step

    @property
    def _step(self) -> AnswerStep:
        if self.type == "message":
            whole = self.text or ""
            if self.plan is not None:
                whole = (whole.strip() + " <proposed_plan>").strip()
            return AnswerStep("message", json.dumps(_short(whole), ensure_ascii=False))
        if self.type == "function_call":
            return AnswerStep(self.kind, _arguments(self.arguments or ""))
        if self.type == "custom_tool_call":
            return AnswerStep(self.kind, _short(self.arguments or ""))
        if self.type == "reasoning":
            return AnswerStep(
                "reasoning", json.dumps(_short(self.text), ensure_ascii=False) if self.text else ""
            )
        return AnswerStep(self.kind, _short(self.text or ""))

    def arguments_json(self) -> Any:
        """A function call's arguments parsed (the text itself when it is not JSON)."""
        try:
            return json.loads(self.arguments or "")
        except ValueError:
            return self.arguments


@dataclass
class Answer:
    """What one request got back: output items, status (with the error), usage."""

    items: list[AnswerItem] = field(default_factory=list)
    status: AnswerStatus = "completed"
    error: str | None = None
    """What went wrong (the response's error, the HTTP error body, the transport error)."""
    usage: dict[str, Any] | None = None

    @property
    def steps(self) -> list[AnswerStep]:
        """The items in short, one line each."""
        return [i.step for i in self.items]

    @property
    def shape(self) -> list[str]:
        """The kinds of the steps in order: what two answers must share to count as the same move."""
        return [i.kind for i in self.items]

    @property
    def text(self) -> str:
        """The visible text of the answer's messages."""
        return "\n".join(i.text for i in self.items if i.type == "message" and i.text)

    @property
    def plans(self) -> list[str]:
        """The `<proposed_plan>` blocks of the answer's messages."""
        return [i.plan for i in self.items if i.plan is not None]

    @property
    def tool_calls(self) -> list[AnswerItem]:
        """The tool calls the answer made, in order: function and custom tool calls, and the
        built-in tools' calls (`apply_patch_call`, `shell_call`, `web_search_call`, … named by type)."""
        return [i for i in self.items if i.name is not None]

    def summary(self) -> str:
        """The answer in one short line (the timeline's form): its steps, or its status."""
        if self.status != "completed" and not self.items:
            return self.status
        bits = [s.line() for s in self.steps if s.kind != "reasoning" or s.gist]
        line = "; ".join(bits) if bits else "no output"
        return line if self.status == "completed" else f"{self.status}: {line}"

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


def answer_status(status: str) -> AnswerStatus:
    """A turn's (or response's) status as one of `ANSWER_STATUSES`.

    The analysis says `http 500`, `transport error`, `incomplete stream`, `no response` or a
    response's own `status`; `cancelled` is a response that did not finish (`incomplete`)."""
    if status in ("completed", "incomplete", "failed"):
        return status  # type: ignore[return-value]  # one of the literal's words
    if status == "cancelled":
        return "incomplete"
    if status.startswith("http "):
        return "error"
    return "cut"


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
    if isinstance(parts, str):
        return parts
    return "".join(str(p.get("text") or p.get("refusal") or "") for p in parts if isinstance(p, dict))


def _name(item: dict[str, Any]) -> str:
    name = str(item.get("name", "?"))
    return f"{item['namespace']}.{name}" if item.get("namespace") else name


def _item(raw: Any, plan_blocks: bool = True) -> AnswerItem:
    if not isinstance(raw, dict):
        return AnswerItem("unknown", text=str(raw))
    kind = str(raw.get("type", "unknown"))
    call_id = raw.get("call_id") if isinstance(raw.get("call_id"), str) else None
    if kind == "message" and not plan_blocks:
        return AnswerItem("message", text=_message_text(raw))  # the block is text to this client
    if kind == "message":
        split = split_proposed_plan(_message_text(raw))
        return AnswerItem("message", text=split.visible, plan=split.plan)
    if kind == "function_call":
        args = raw.get("arguments", "")
        text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        return AnswerItem(kind, name=_name(raw), arguments=text, call_id=call_id)
    if kind == "custom_tool_call":
        return AnswerItem(kind, name=_name(raw), arguments=str(raw.get("input", "")), call_id=call_id)
    if kind == "reasoning":
        summary = [str(p.get("text", "")) for p in raw.get("summary") or [] if isinstance(p, dict)]
        if not any(summary):  # open-weight models stream `reasoning_text` content and no summary
            content = raw.get("content") or []
            summary = [str(c.get("text", "")) for c in content if isinstance(c, dict)]
        text = "\n".join(s for s in summary if s)
        return AnswerItem("reasoning", text=text or None)
    rest = {
        k: v
        for k, v in raw.items()
        if k not in ("type", "id", "status", "encrypted_content") and v is not None
    }
    # A built-in tool's call (`apply_patch_call`, `local_shell_call`, `web_search_call`): the tool is
    # named by its type, so `tool:apply_patch` finds it as it finds the custom tool of that name.
    name: str | None = None
    if kind.endswith("_call"):
        name = str(raw.get("name") or kind.removesuffix("_call").removeprefix("local_"))
    shown = json.dumps(rest, ensure_ascii=False) if rest else None
    return AnswerItem(kind, name=name, text=shown, call_id=call_id)


def answer_of(
    output: Any,
    *,
    status: str = "completed",
    usage: Any = None,
    error: str | None = None,
    plan_blocks: bool = True,
) -> Answer:
    """The answer held in a response's `output` list; `status` is a turn's or a response's status.

    `plan_blocks`: a `<proposed_plan>` block is the plan (Codex's plan mode); False: the client
    ignores such blocks (another plan protocol, or not planning), so the block stays in the text."""
    items = output if isinstance(output, list) else []
    return Answer(
        items=[_item(item, plan_blocks) for item in items],
        status=answer_status(status),
        error=error,
        usage=usage if isinstance(usage, dict) else None,
    )


def turn_answer(turn: Turn, *, plan_blocks: bool = True) -> Answer:
    """What a recorded turn got back (its response's output, status, error and usage); `plan_blocks`
    as in `answer_of`."""
    error = turn.error if turn.status != "completed" else None
    if error is None and turn.status == "incomplete stream":
        error = "the stream ended without a terminal event"
    elif error is None and turn.status == "no response":
        error = "no response was recorded"
    answer = answer_of(turn.output, status=turn.status, usage=turn.usage, error=error, plan_blocks=plan_blocks)
    runs = (turn.exchange.meta.get("codex_trace") or {}).get("tool_runs")
    if isinstance(runs, dict) and runs:
        answer.items = [
            replace(item, run=tool_run_of(runs.get(item.call_id))) if item.call_id in runs else item
            for item in answer.items
        ]
    return answer

"""Backend comparison: two recordings of the same task (API key vs ChatGPT OAuth, harness vs Codex
CLI) aligned turn by turn — endpoint, headers (already redacted), request defaults, instructions,
tools, items, transport and usage.

Each side is normalised with its own replay normaliser (its own working directory, ids, dates), so
only differences that matter remain.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from inspector.analysis.alignment import align_turns
from inspector.analysis.analyse import Analysis, TurnAnalysis
from inspector.analysis.diffs import PARAM_KEYS, ToolDiff, instructions_diff, params_diff, tools_diff
from inspector.analysis.instructions import effective_instructions
from inspector.analysis.normalise import cross_run
from inspector.analysis.structure import structural_differences

# Headers that differ on every request whatever the backend: not a difference worth showing.
_NOISY_HEADERS = frozenset(
    {
        "content-length",
        "date",
        "x-client-request-id",
        "session-id",
        "thread-id",
        "x-request-id",
        "x-codex-turn-metadata",
        "x-codex-window-id",
        "host",
        "traceparent",
    }
)


@dataclass
class TurnComparison:
    """Row `index` of the alignment: how turn `a` differs from turn `b` (None: no counterpart)."""

    index: int
    a: TurnAnalysis | None
    b: TurnAnalysis | None
    endpoint: tuple[str, str] | None = None
    transport: tuple[str, str] | None = None
    headers_only_a: list[str] = field(default_factory=list)
    headers_only_b: list[str] = field(default_factory=list)
    headers_changed: dict[str, tuple[str, str]] = field(default_factory=dict)
    params: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    body_keys_only_a: list[str] = field(default_factory=list)
    body_keys_only_b: list[str] = field(default_factory=list)
    instructions: list[str] = field(default_factory=list)
    tools: ToolDiff = field(default_factory=ToolDiff)
    items: list[str] = field(default_factory=list)
    """Layout diff lines (`- label`, `+ label`) of the normalised item labels."""
    usage: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)
    status: tuple[str, str] | None = None
    structure: list[str] = field(default_factory=list)
    """Structural differences (`structure.structural_differences`); empty: the same structure."""

    @property
    def same_structure(self) -> bool:
        """True when both sides exist and differ only in wording and values (`structure.ALLOWED`)."""
        return self.a is not None and self.b is not None and not self.structure

    @property
    def same(self) -> bool:
        """True when nothing but volatile values differ."""
        return (
            self.a is not None
            and self.b is not None
            and not any(
                (
                    self.endpoint,
                    self.transport,
                    self.headers_only_a,
                    self.headers_only_b,
                    self.headers_changed,
                    self.params,
                    self.body_keys_only_a,
                    self.body_keys_only_b,
                    self.instructions,
                    not self.tools.empty,
                    self.items,
                    self.status,
                )
            )
        )


@dataclass
class Comparison:
    """Two analysed recordings side by side."""

    a: Analysis
    b: Analysis
    turns: list[TurnComparison]
    notes: list[str] = field(default_factory=list)
    """Remarks about the pair as a whole (e.g. the tasks look different)."""


def _endpoint(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def _headers(headers: dict[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items() if k.lower() not in _NOISY_HEADERS}


def _pair(
    index: int, a: TurnAnalysis | None, b: TurnAnalysis | None, norm_a: Any, norm_b: Any
) -> TurnComparison:
    result = TurnComparison(index, a, b)
    if a is None or b is None:
        return result
    ta, tb = a.turn, b.turn
    if _endpoint(ta.exchange.url) != _endpoint(tb.exchange.url):
        result.endpoint = (_endpoint(ta.exchange.url), _endpoint(tb.exchange.url))
    if ta.transport != tb.transport:
        result.transport = (ta.transport, tb.transport)
    ha, hb = _headers(ta.exchange.request_headers), _headers(tb.exchange.request_headers)
    result.headers_only_a = sorted(set(ha) - set(hb))
    result.headers_only_b = sorted(set(hb) - set(ha))
    for name in sorted(set(ha) & set(hb)):
        va, vb = norm_a.text(ha[name]), norm_b.text(hb[name])
        if va != vb:
            result.headers_changed[name] = (ha[name], hb[name])
    ba, bb = norm_a.body(ta.body), norm_b.body(tb.body)
    result.params = params_diff(ba, bb)
    ignore = {"input", "instructions", "tools", *PARAM_KEYS}  # those are compared above
    result.body_keys_only_a = sorted(set(ba) - set(bb) - ignore)
    result.body_keys_only_b = sorted(set(bb) - set(ba) - ignore)
    # Wherever each side sends its base prompt (field, input[0], model switch), compare the texts.
    result.instructions = instructions_diff(
        norm_a.text(effective_instructions(ta.body, ta.items)),
        norm_b.text(effective_instructions(tb.body, tb.items)),
    )
    result.tools = tools_diff(ba.get("tools"), bb.get("tools"))
    labels_a = [norm_a.text(i.label) for i in ta.items]
    labels_b = [norm_b.text(i.label) for i in tb.items]
    if labels_a != labels_b:
        result.items = [line for line in difflib.ndiff(labels_a, labels_b) if line[:1] in "+-"]
    for key in ("input_tokens", "cached_tokens", "output_tokens"):
        result.usage[key] = (a.tokens.usage.get(key), b.tokens.usage.get(key))
    if ta.status != tb.status:
        result.status = (ta.status, tb.status)
    result.structure = structural_differences(a, b, norm_a.text, norm_b.text)
    return result


def _first_request(analysis: Analysis, normaliser: Any) -> str | None:
    for result in analysis.turns:
        for item in result.turn.items:
            if item.kind == "user_message":
                return str(normaliser.text(item.text))
    return None


def _task_note(a: Analysis, b: Analysis, norm_a: Any, norm_b: Any) -> list[str]:
    first_a, first_b = _first_request(a, norm_a), _first_request(b, norm_b)
    if first_a is None or first_b is None or first_a == first_b:
        return []
    return [
        f"the first user messages differ ({_quote(first_a)} vs {_quote(first_b)}): these may be "
        "recordings of different tasks, so their turns differ as a whole"
    ]


def _quote(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= limit else flat[: limit - 1] + "…", ensure_ascii=False)


def compare_analyses(a: Analysis, b: Analysis) -> Comparison:
    """Align the model requests of two recordings (`alignment.align_turns`) and compare each pair;
    a turn with no counterpart is a pair with one side None."""
    norm_a = cross_run([t.turn.body for t in a.turns])
    norm_b = cross_run([t.turn.body for t in b.turns])
    pairs = [
        _pair(
            index,
            a.turns[p.a] if p.a is not None else None,
            b.turns[p.b] if p.b is not None else None,
            norm_a,
            norm_b,
        )
        for index, p in enumerate(align_turns(a, b), start=1)
    ]
    return Comparison(a, b, pairs, _task_note(a, b, norm_a, norm_b))

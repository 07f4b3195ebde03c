"""What fills the context: each turn's request in tokens by kind, its largest items, and findings.

A request is the base prompt, the tools, the injected context fragments (permissions, AGENTS.md,
environment, skills, collaboration mode, goal, plan reminders, compaction summary, Codex's
`additional_tools`, …) and the history (user and assistant messages, reasoning, tool calls, and
tool outputs by the tool that produced them). The kinds are read from the one classification of
`items` (each fragment recognised by the harness's own definition), and every turn's kinds sum to
the counted total of the turn (`TokenReport.total`): nothing is counted twice or left out.

Across the turns of a thread the composition says which kind grew most, what a compaction removed,
and three findings people ask for: tools offered on every request and never called (with what
they cost), the same large text sent more than once in one context, and the fastest-growing kind.
Counts are o200k_base (see `tokens`); the backend also counts framing we cannot see, so the
reported input tokens run a little higher (`TokenReport.unaccounted`).
"""

from __future__ import annotations

import functools
import hashlib
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.growing import grown
from ctxscope.inspector.analysis.instructions import BASE_PROMPT_KIND
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.analysis.tokens import count_json
from ctxscope.inspector.analysis.window import context_window

__all__ = [
    "AUTO_COMPACT_RATIO",
    "Composition",
    "CompositionReport",
    "Finding",
    "LargeItem",
    "compose",
    "composition_report",
]

AUTO_COMPACT_RATIO = 0.9
"""Codex compacts when the context passes 90 % of the window (`model_auto_compact_token_limit`)."""
LARGEST = 5
DUPLICATE_MIN_TOKENS = 200
"""A text this long sent twice in one context is worth a finding (shorter repeats are normal)."""

_CALL_TYPES = ("function_call", "custom_tool_call", "local_shell_call", "shell_call", "apply_patch_call")
_HISTORY_KINDS = {
    "user_message": "user",
    "assistant_message": "assistant",
    "developer_message": "developer",
    "system_message": "system",
    "reasoning": "reasoning",
}


@dataclass(frozen=True)
class LargeItem:
    label: str
    """What it is and where it came from: `exec_command output (turn 12)`."""
    tokens: int
    kind: str
    position: int
    """Its index in the request's `input[]` (-1: the tools or the instructions)."""
    since: int
    """The turn whose request first carried it."""


@dataclass
class Composition:
    """One turn's context in tokens."""

    turn: int
    thread: str
    total: int
    window: int
    window_known: bool
    threshold: int
    """Tokens at which an auto-compaction is due (90 % of the window)."""
    by_kind: dict[str, int] = field(default_factory=dict)
    """Kind → tokens, largest first; the values sum to `total`."""
    largest: list[LargeItem] = field(default_factory=list)
    change: str = ""
    """The turn's change kind (`append`, `compaction`, …)."""
    growth: dict[str, int] = field(default_factory=dict)
    """Kind → tokens gained (negative: lost) since the previous turn of the thread."""

    @property
    def fill(self) -> float:
        return self.total / self.window if self.window else 0.0


@dataclass(frozen=True)
class Finding:
    kind: str
    """`unused_tool`, `duplicate`, `fastest_growing`."""
    thread: str
    text: str
    tokens: int
    """What it costs: tokens per request (unused tools, duplicates) or tokens gained (growth)."""


@dataclass(eq=False)
class CompositionReport:
    turns: list[Composition]
    found: Callable[[], list[Finding]] = field(default=list, repr=False)
    """Makes the findings on the first read of `findings`: the index and the TUI's composition pane
    read the turns alone, and the findings' sentences cost about a fifth of a small recording's turns."""
    _findings: list[Finding] | None = field(default=None, init=False, repr=False)

    @property
    def findings(self) -> list[Finding]:
        """Tools offered and never called, texts sent twice, the fastest-growing kind (per thread)."""
        if self._findings is None:
            self._findings = self.found()
        return self._findings

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompositionReport):
            return NotImplemented
        return (self.turns, self.findings) == (other.turns, other.findings)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was


_LISTS = 64
"""Tools lists the caches below hold, each kept alive by them (a recording's requests share a few
lists; an index run over thousands of recordings would otherwise hold thousands)."""
_TOOL_SIZES: dict[int, tuple[Any, list[tuple[str, int]]]] = {}
"""id(tools list) → (the list, its (name, tokens) per tool): a recording's requests share one
stored tools list, so each is measured once, not once per turn."""


def tool_sizes(tools: Any) -> list[tuple[str, int]]:
    """(name, tokens) of each tool of a request's `tools` list."""
    if not isinstance(tools, list):
        return []
    cached = _TOOL_SIZES.get(id(tools))
    if cached is not None and cached[0] is tools:
        return cached[1]
    sizes = [
        (str(tool.get("name") or tool.get("type")), count_json(tool))
        for tool in tools
        if isinstance(tool, dict)
    ]
    if len(_TOOL_SIZES) > _LISTS:
        _TOOL_SIZES.clear()
    _TOOL_SIZES[id(tools)] = (tools, sizes)
    return sizes


_TOOL_ENTRIES: dict[int, tuple[Any, list[tuple[int, str, str, int]]]] = {}
"""id(tools list) → (the list, its tools as largest-item candidates), made once per stored list as
`_TOOL_SIZES` is, not once per turn."""
_TOKENS = operator.itemgetter(0)
"""A largest-item candidate's tokens."""


def _tool_entries(tools: Any) -> list[tuple[int, str, str, int]]:
    """(tokens, label, kind, position) of each tool of a request's `tools` list."""
    cached = _TOOL_ENTRIES.get(id(tools))
    if cached is not None and cached[0] is tools:
        return cached[1]
    entries = [(tokens, f"tool {name}", "tools", -1) for name, tokens in tool_sizes(tools)]
    if len(_TOOL_ENTRIES) > _LISTS:
        _TOOL_ENTRIES.clear()
    _TOOL_ENTRIES[id(tools)] = (tools, entries)
    return entries


def _history_kind(item: Item, tool_names: Mapping[str, str]) -> str:
    if item.kind in _HISTORY_KINDS:
        return _HISTORY_KINDS[item.kind]
    raw = item.raw if isinstance(item.raw, dict) else {}
    if item.type in _CALL_TYPES:
        return "tool_calls"
    if item.type.endswith("_output"):
        name = tool_names.get(str(raw.get("call_id")), "") or item.type.removesuffix("_output")
        return f"tool_output:{name}"
    if item.kind == "compaction":
        return "compaction_summary"
    return item.kind


def _tool_names(items: Iterable[Item]) -> dict[str, str]:
    """call_id → the tool it called, so each output is counted under its tool."""
    names: dict[str, str] = {}
    for item in items:
        raw = item.raw if isinstance(item.raw, dict) else {}
        if item.type in _CALL_TYPES and isinstance(raw.get("call_id"), str):
            name = raw.get("name") or item.type
            names[raw["call_id"]] = f"{raw['namespace']}.{name}" if raw.get("namespace") else str(name)
    return names


def _item_label(item: Item, kind: str) -> str:
    if kind.startswith("tool_output:"):
        return f"{kind.split(':', 1)[1]} output"
    if item.parts and len(item.fragments) == 1 and len(item.parts) == 1:
        return item.fragments[0].label
    return item.label if len(item.label) <= 60 else item.label[:59] + "…"


@dataclass
class _Carry:
    """The items part of a turn's composition, continued by the next turn when it only appends."""

    count: int
    by_kind: dict[str, int]
    sized: list[tuple[int, str, str, int]]
    """The largest items so far: (tokens, label, kind, position), largest first, at most LARGEST."""
    names: Mapping[str, str]


def _items_part(items: Sequence[Item], carry: _Carry | None) -> _Carry:
    """Per-kind tokens and largest items of `items`, continuing `carry` when it covers a prefix."""
    if carry is not None and carry.count <= len(items):
        # the call names carried as they are (`grown`: no copy per turn), the rest is small
        by_kind, sized, carried = dict(carry.by_kind), list(carry.sized), carry.names
        start = carry.count
    else:
        by_kind, sized, carried, start = {}, [], None, 0
    added = items[start:]
    names = grown(carried, _tool_names(added).items())

    def add(kind: str, tokens: int) -> None:
        if tokens:
            by_kind[kind] = by_kind.get(kind, 0) + tokens

    for item in added:
        if item.kind == BASE_PROMPT_KIND:
            add("base_prompt", item.tokens)
            sized.append((item.tokens, "base prompt", "base_prompt", item.position))
            continue
        if item.parts and item.type == "message":
            for part in item.parts:
                kind = part.kind if part.is_fragment else _HISTORY_KINDS.get(f"{item.role}_message", "user")
                add(kind, part.tokens)
            fragments = item.fragments
            kind = fragments[0].kind if fragments else _history_kind(item, names)
        else:
            kind = _history_kind(item, names)
            add(kind, item.tokens)
        if len(sized) < LARGEST or item.tokens > sized[-1][0]:
            sized.append((item.tokens, _item_label(item, kind), kind, item.position))
            sized.sort(key=_TOKENS, reverse=True)
            del sized[LARGEST:]
    return _Carry(len(items), by_kind, sized, names)


def compose(
    turn: TurnAnalysis,
    since: dict[str, int] | None = None,
    carry: _Carry | None = None,
    made: dict[tuple[str, int, str, int, int], LargeItem] | None = None,
) -> tuple[Composition, _Carry]:
    """The composition of one turn, and what the next turn continues from.

    `since` maps item keys to the turn that first sent them; `carry` is the previous turn's when
    this turn's input starts with all of that turn's items (an append); `made` the largest items the
    thread's earlier turns listed, by their fields (the same item and tool recur turn after turn).
    """
    items = turn.turn.items
    part = _items_part(items, carry)
    by_kind = dict(part.by_kind)
    sized = list(part.sized)
    report = turn.tokens
    if not _marked(items) and report.by_kind.get("instructions"):
        by_kind["base_prompt"] = by_kind.get("base_prompt", 0) + report.by_kind["instructions"]
    if report.by_kind.get("tools"):
        by_kind["tools"] = by_kind.get("tools", 0) + report.by_kind["tools"]
        sized += _tool_entries(turn.turn.body.get("tools"))
    sized.sort(key=_TOKENS, reverse=True)  # stable (ties keep their order) as with key -tokens
    first = since or {}
    made = {} if made is None else made
    largest: list[LargeItem] = []
    for tokens, label, kind, position in sized[:LARGEST]:
        if not tokens:
            continue
        key = items[position].key if position >= 0 else f"tool:{label}"
        fields = (label, tokens, kind, position, first.get(key, turn.turn.number))
        large = made.get(fields)
        if large is None:  # frozen: one instance serves every turn that lists it
            large = made[fields] = LargeItem(*fields)
        largest.append(large)
    window = context_window(turn.turn.model)
    composition = Composition(
        turn=turn.turn.number,
        thread=turn.turn.thread,
        total=sum(by_kind.values()),
        window=window.tokens,
        window_known=window.known,
        threshold=int(window.tokens * AUTO_COMPACT_RATIO),
        by_kind=dict(sorted(by_kind.items(), key=lambda kv: (-kv[1], kv[0]))),
        largest=largest,
        change=str(turn.change.kind),
    )
    return composition, part


def _marked(items: Sequence[Item]) -> bool:
    return bool(items) and items[0].kind == BASE_PROMPT_KIND


def _called_tools(turns: list[TurnAnalysis]) -> set[str]:
    """Tools called in the thread: in its answers, or in history it brought along (what each turn added)."""
    called: set[str] = set()
    for index, turn in enumerate(turns):
        added = turn.turn.raw_input[turn.change.kept :] if index else turn.turn.raw_input
        for source in (turn.turn.output or [], added or []):
            for raw in source:
                if isinstance(raw, dict) and raw.get("type") in _CALL_TYPES:
                    called.add(str(raw.get("name") or raw.get("type")))
    return called


def _unused_tools(thread: str, turns: list[TurnAnalysis]) -> list[Finding]:
    """Tools sent on every request of the thread and called in none of them."""
    offered: dict[str, int] | None = None
    """Name → tokens (the first request's) of the tools every request so far offered."""
    last: Any = object()  # no request's tools: the first request is always read
    for turn in turns:
        tools = turn.turn.body.get("tools")
        if tools is last:  # the same stored list as the request before (as a recording's requests share it)
            continue
        last = tools
        here = dict(tool_sizes(tools))
        offered = here if offered is None else {n: t for n, t in offered.items() if n in here}
    count = len(turns)  # a tool still offered was offered on every request
    called = _called_tools(turns)
    findings = []
    for name, tokens in sorted((offered or {}).items(), key=lambda kv: -kv[1]):
        if name in called:
            continue
        findings.append(
            Finding(
                "unused_tool",
                thread,
                f"tool {name} offered on all {count} requests, never called: "
                f"{tokens:,} tokens a request, {tokens * count:,} in all",
                tokens,
            )
        )
    return findings


def _duplicates(thread: str, turn: TurnAnalysis) -> list[Finding]:
    """The same large text twice or more in one context (a file read twice, an output re-sent)."""
    seen: dict[str, list[Item]] = {}
    for item in turn.turn.items:
        if item.tokens < DUPLICATE_MIN_TOKENS or not item.text:
            continue
        text = item.text
        if item.type.endswith("_output") or item.type == "message":
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            seen.setdefault(digest, []).append(item)
    findings = []
    for copies in seen.values():
        if len(copies) < 2:
            continue
        where = ", ".join(f"input[{c.position}]" for c in copies)
        label = _item_label(copies[0], _history_kind(copies[0], _tool_names(turn.turn.items)))
        findings.append(
            Finding(
                "duplicate",
                thread,
                f"the same {copies[0].tokens:,}-token text is sent {len(copies)} times at turn "
                f"{turn.turn.number} ({label}: {where})",
                copies[0].tokens * (len(copies) - 1),
            )
        )
    return findings


def composition_report(analysis: Analysis) -> CompositionReport:
    """Every turn's composition, its growth against the previous turn of its thread, and findings."""
    by_thread: dict[str, list[TurnAnalysis]] = {}
    for turn in analysis.turns:
        if getattr(turn.turn, "side", None):
            continue  # title generation and other side requests are not the conversation's context
        by_thread.setdefault(turn.turn.thread, []).append(turn)
    out: dict[int, Composition] = {}
    threads: list[tuple[str, list[TurnAnalysis], dict[str, int], int]] = []
    """Each thread with its growth since its last compaction and over how many turns: the findings'."""
    for thread, turns in by_thread.items():
        first_seen: dict[str, int] = {}
        offered: Any = object()
        """The tools list of the thread's turn before (none yet)."""
        made: dict[tuple[str, int, str, int, int], LargeItem] = {}
        previous: Composition | None = None
        carry: _Carry | None = None
        carry_count = -1
        growth_total: dict[str, int] = {}
        window_turns = 1  # turns since the thread's last compaction (or its start): growth's span
        for turn in turns:
            # items before the kept prefix were seen by the previous turn already
            for item in turn.turn.items[turn.change.kept if previous is not None else 0 :]:
                first_seen.setdefault(item.key, turn.turn.number)
            tools = turn.turn.body.get("tools")
            if tools is not offered:  # the same list as the turn before: its tools are in first_seen
                for name, _ in tool_sizes(tools):
                    first_seen.setdefault(f"tool:tool {name}", turn.turn.number)
                offered = tools
            appended = previous is not None and turn.change.kept == carry_count
            comp, carry = compose(turn, first_seen, carry if appended else None, made)
            carry_count = carry.count
            if previous is not None:
                kinds = set(comp.by_kind) | set(previous.by_kind)
                now, before = comp.by_kind, previous.by_kind
                comp.growth = {k: d for k in sorted(kinds) if (d := now.get(k, 0) - before.get(k, 0))}
                if comp.change in ("compaction", "fork"):
                    # A new context window: growth is measured from here (what a compaction
                    # shrank is not still "growing fastest" after it).
                    growth_total, window_turns = {}, 1
                else:
                    window_turns += 1
                    for k, v in comp.growth.items():
                        growth_total[k] = growth_total.get(k, 0) + v
            out[turn.turn.number] = comp
            previous = comp
        threads.append((thread, turns, growth_total, window_turns))
    return CompositionReport([out[n] for n in sorted(out)], functools.partial(_findings, threads))


def _findings(threads: list[tuple[str, list[TurnAnalysis], dict[str, int], int]]) -> list[Finding]:
    """The findings of `composition_report`, thread by thread."""
    findings: list[Finding] = []
    for thread, turns, growth_total, window_turns in threads:
        findings += _unused_tools(thread, turns)
        findings += _duplicates(thread, turns[-1])
        growing = [(v, k) for k, v in growth_total.items() if v > 0]
        if growing and window_turns > 1:
            gained, kind = max(growing)
            since = "since the last compaction" if window_turns < len(turns) else "since the thread began"
            findings.append(
                Finding(
                    "fastest_growing",
                    thread,
                    f"{kind} grew fastest: +{gained:,} tokens over {window_turns} turns {since} "
                    f"({gained * 100 // max(1, sum(v for v, _ in growing))} % of the growth)",
                    gained,
                )
            )
    return findings


def composition_json(report: CompositionReport) -> dict[str, Any]:
    """`ctxscope context --format json` (the names are kept stable: scripts read them)."""
    return {
        "turns": [
            {
                "turn": c.turn,
                "thread": c.thread,
                "total": c.total,
                "window": c.window,
                "threshold": c.threshold,
                "change": c.change,
                "by_kind": c.by_kind,
                "growth": c.growth,
                "largest": [
                    {"label": i.label, "tokens": i.tokens, "kind": i.kind, "since": i.since}
                    for i in c.largest
                ],
            }
            for c in report.turns
        ],
        "findings": [
            {"kind": f.kind, "thread": f.thread, "text": f.text, "tokens": f.tokens} for f in report.findings
        ],
    }

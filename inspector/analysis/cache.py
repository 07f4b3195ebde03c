"""Why the prompt cache missed: each turn's cacheable prefix, where it broke, and what that cost.

OpenAI's prompt cache serves the longest prefix a request shares with an earlier request routed
to the same cache (the same `prompt_cache_key`, or the same conversation when there is none; the
same model), in steps of 128 tokens from 1,024 (`tokens.predicted_cached`). The prefix is laid out
as the analysis counts it everywhere: the instructions, the tools, then `input[]` in order.
Anything that changes early in that layout breaks the prefix for all that follows.

For each turn this module finds the previous request of the same cache key (side requests such as
a prewarm included) and the best earlier one (the longest shared prefix), the predicted cached
tokens, the `cached_tokens` the backend reported, and where the prefix broke: the first differing
place (a parameter such as `model` or `reasoning.effort`, `instructions`, `tools`, or `input[N]`
with its label) and why, in words
("environment_context current_date 2026-11-30 → 2026-12-01", "tools reordered", "AGENTS.md
replaced", "compaction", "model switch"), with the tokens the break cost (what would have been
cached had the request only appended; a change that cost nothing is a note, not a break). A turn
whose reported cached tokens fall far below the prediction is flagged: the backend did not use its
cache (evicted, or keyed differently).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ctxscope.inspector.analysis.cache_keys import KEYED_PARAMETERS, keyed_value
from ctxscope.inspector.analysis.changes import ChangeKind
from ctxscope.inspector.analysis.diffs import instructions_text
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.analysis.tokens import CACHE_MIN_TOKENS, predicted_cached
from ctxscope.proxy.responses.vocabulary import COMPACTION_REQUEST_KINDS

if TYPE_CHECKING:  # the analysis runs the model; the model reads the analysed turns
    from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis

__all__ = ["CacheBreak", "CacheModel", "CacheTurn", "cache_json", "cache_report"]

LOW_CACHE_RATIO = 0.5
"""Reported cached tokens below half the prediction (of at least 1,024 tokens) are flagged."""


@dataclass(frozen=True)
class CacheBreak:
    at: str
    """`model`, `reasoning.effort`, `instructions`, `tools`, or `input[N]`."""
    label: str
    cause: str
    tokens: int
    """Cached tokens lost to the break: the prediction had the request only appended, minus now."""


@dataclass
class CacheTurn:
    turn: int
    thread: str
    key: str
    """The cache key the request was routed by (`prompt_cache_key`, else the thread)."""
    prefix: int
    """Tokens shared with the previous request of the same key."""
    best_prefix: int
    best_turn: int | None
    """The earlier request of the same key sharing the longest prefix (None: no earlier request)."""
    predicted_cached: int
    reported_cached: int | None
    previous: int | None = None
    brk: CacheBreak | None = None
    flag: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Layout:
    """A request as the cache sees it: the keyed parameters, then the prefix pieces with their tokens."""

    number: int
    params: dict[str, Any]
    instructions: str
    instructions_tokens: int
    tools: list[Any]
    tools_tokens: int
    items: Sequence[Item]
    items_tokens: int
    appended_to: int | None
    """The turn this one only appended to (its input starts with that turn's whole input)."""

    @property
    def total(self) -> int:
        return self.instructions_tokens + self.tools_tokens + self.items_tokens


def _layout(turn: TurnAnalysis) -> _Layout:
    body = turn.turn.body
    instructions = instructions_text(body.get("instructions"))
    tools = body.get("tools") if isinstance(body.get("tools"), list) else []
    change = turn.change
    return _Layout(
        number=turn.turn.number,
        params={p: keyed_value(body, p) for p in KEYED_PARAMETERS},
        instructions=instructions,
        instructions_tokens=turn.tokens.by_kind.get("instructions", 0) if instructions else 0,
        tools=tools or [],
        tools_tokens=turn.tokens.by_kind.get("tools", 0) if tools else 0,
        items=turn.turn.items,
        items_tokens=turn.tokens.items,
        appended_to=change.previous if change.kind == ChangeKind.APPEND else None,
    )


def _shared_items(old: _Layout, new: _Layout) -> tuple[int, int]:
    """(items kept from `old`, their tokens); an append to `old` is known without a comparison, so
    a long growing session costs one step a turn, not one per item."""
    if new.appended_to == old.number:
        return len(old.items), old.items_tokens
    kept = tokens = 0
    for before, after in zip(old.items, new.items, strict=False):
        if before.key != after.key:
            break
        kept, tokens = kept + 1, tokens + after.tokens
    return kept, tokens


def _shared(old: _Layout, new: _Layout) -> tuple[int, str | None, int]:
    """(shared prefix tokens, where it broke or None, the input index of the break or -1)."""
    for name in KEYED_PARAMETERS:
        if old.params.get(name) != new.params.get(name):
            return 0, name, -1
    if old.instructions != new.instructions:
        return 0, "instructions", -1
    head = old.instructions_tokens
    if old.tools is not new.tools and old.tools != new.tools:
        return head, "tools", -1
    head += old.tools_tokens
    kept, tokens = _shared_items(old, new)
    shared = head + tokens
    if kept < len(old.items):
        return shared, f"input[{kept}]", kept
    return shared, None, -1


def _tool_name(tool: Any) -> str:
    return str(tool.get("name") or tool.get("type")) if isinstance(tool, dict) else "?"


def _tools_cause(old: list[Any], new: list[Any]) -> str:
    old_names, new_names = [_tool_name(t) for t in old], [_tool_name(t) for t in new]
    if sorted(old_names) == sorted(new_names) and old_names != new_names:
        return "tools reordered"
    added = [n for n in new_names if n not in old_names]
    removed = [n for n in old_names if n not in new_names]
    if added or removed:
        said = [f"+{n}" for n in added] + [f"-{n}" for n in removed]
        return "tools changed: " + ", ".join(said)
    by_name = {_tool_name(t): t for t in old}
    changed = [_tool_name(t) for t in new if by_name.get(_tool_name(t)) != t]
    return "tool schema changed: " + ", ".join(changed or ["?"])


def _value_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    said = []
    for key in list(old) + [k for k in new if k not in old]:
        if old.get(key) != new.get(key):
            said.append(f"{key} {_short(old.get(key))} → {_short(new.get(key))}")
    return said


def _short(value: Any) -> str:
    text = "(none)" if value is None else str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _input_cause(old: Item, new: Item | None, change: str) -> str:
    if change == "compaction":
        return "compaction: the history was replaced by a summary"
    if new is None:
        return f"{old.label} removed (the request is shorter than the one before)"
    old_frag = {p.kind: p for p in old.fragments}
    new_frag = {p.kind: p for p in new.fragments}
    for kind, part in old_frag.items():
        other = new_frag.get(kind)
        if other is None:
            continue
        if part.text != other.text:
            if kind.startswith("agents_md"):
                return "AGENTS.md replaced" if part.values != other.values else "AGENTS.md text changed"
            changes = _value_changes(part.values, other.values)
            return f"{kind} " + ("; ".join(changes[:3]) if changes else "text changed")
    if old_frag and not new_frag:
        return f"{old.label} replaced by {new.label}"
    if old.type == new.type and old.role == new.role:
        if new.text.startswith(old.text) or old.text.startswith(new.text):
            return f"{old.label} changed in place (its text was cut or extended)"
        return f"{old.label} changed"
    return f"{old.label} replaced by {new.label}"


def _cause(at: str, old: _Layout, new: _Layout, index: int, change: str) -> tuple[str, str]:
    if at == "model":
        return "model", f"model switch {old.params.get('model')} → {new.params.get('model')}"
    if at in KEYED_PARAMETERS:
        return at, f"{at} {_short(old.params.get(at))} → {_short(new.params.get(at))}"
    if at == "instructions":
        return "instructions", "instructions changed"
    if at == "tools":
        return "tools", _tools_cause(old.tools, new.tools)
    previous = old.items[index]
    current = new.items[index] if index < len(new.items) else None
    return previous.label, _input_cause(previous, current, change)


def _held_changes(turn: TurnAnalysis, kept: int) -> list[str]:
    """World changes this turn appended after the cached prefix (the date, the cwd): said, so a
    reader sees that they did not break the cache."""
    notes = []
    for change in turn.state_changes:
        if isinstance(change.before, (str, int, float)) and isinstance(change.after, (str, int, float)):
            notes.append(
                f"{change.field} {_short(change.before)} → {_short(change.after)} was appended "
                f"(input[{kept}] on): the cached prefix holds"
            )
    return notes


def _reported_cached(usage: Mapping[str, Any] | None) -> int | None:
    details = (usage or {}).get("input_tokens_details")
    value = details.get("cached_tokens") if isinstance(details, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cache_key(turn: TurnAnalysis) -> str:
    key = turn.turn.body.get("prompt_cache_key")
    return str(key) if isinstance(key, str) and key else f"thread {turn.turn.thread}"


class CacheModel:
    """The one model of the cached prefix, fed the analysed turns in request order (side requests
    such as Codex's WebSocket prewarm included: they warm the cache of their key too). The analysis
    runs it and puts each turn's entry on the turn (`TurnAnalysis.cache`), so `diff`, `cache`, the
    TUI and the HTML report read one prediction."""

    def __init__(self) -> None:
        self._earlier: dict[str, list[tuple[int, _Layout]]] = {}

    def entry(self, turn: TurnAnalysis) -> CacheTurn:
        """The cache forensics of `turn`, against the requests of its key seen so far; remembers it."""
        layout = _layout(turn)
        key = _cache_key(turn)
        history = self._earlier.setdefault(key, [])
        reported = _reported_cached(turn.turn.usage)
        entry = CacheTurn(turn.turn.number, turn.turn.thread, key, 0, 0, None, 0, reported)
        if history:
            self._against(entry, turn, layout, history)
        if (
            reported is not None
            and entry.predicted_cached >= CACHE_MIN_TOKENS
            and reported < entry.predicted_cached * LOW_CACHE_RATIO
        ):
            entry.flag = (
                f"backend cache not used: {reported:,} cached of {entry.predicted_cached:,} predicted "
                "(evicted, or keyed differently)"
            )
        history.append((turn.turn.number, layout))
        return entry

    @staticmethod
    def _against(
        entry: CacheTurn, turn: TurnAnalysis, layout: _Layout, history: list[tuple[int, _Layout]]
    ) -> None:
        number, last = history[-1]
        shared, at, index = _shared(last, layout)
        entry.previous = number
        entry.prefix = shared
        entry.best_prefix, entry.best_turn = shared, number
        # An earlier request can only share more when this one broke from the previous one
        # (a rewrite back to an older context); on an append the previous request is best.
        for other_number, other in history[:-1] if at is not None else ():
            other_shared, _, _ = _shared(other, layout)
            if other_shared > entry.best_prefix:
                entry.best_prefix, entry.best_turn = other_shared, other_number
        entry.predicted_cached = predicted_cached(entry.best_prefix)
        if at is not None:
            label, cause = _cause(at, last, layout, index, str(turn.change.kind))
            if turn.turn.request_kind in COMPACTION_REQUEST_KINDS:
                remote = " (remote)" if turn.turn.endpoint != "responses" else ""
                cause = f"a compaction request{remote}: {cause}"
            # What had been cached had the request only appended to the previous one; a request
            # shorter than that can lose at most what its own length could have been served.
            lost = max(0, predicted_cached(min(last.total, layout.total)) - entry.predicted_cached)
            if lost:
                entry.brk = CacheBreak(at, label, cause, lost)
            else:
                # A change that cost no cached token (the request is under the cache's minimum,
                # or an earlier request shares as much) is not a break: said, not flagged.
                entry.notes.append(f"the prefix changed at {at} ({cause}); no cached token lost")
        else:
            entry.notes += _held_changes(turn, len(last.items))
        if entry.best_turn != number and entry.best_prefix > shared:
            entry.notes.append(
                f"turn {entry.best_turn} shares a longer prefix ({entry.best_prefix:,} tokens) "
                f"than the previous request, turn {number}"
            )


def cache_report(analysis: Analysis) -> list[CacheTurn]:
    """Cache forensics for every model request of `analysis`, in request order (the analysis's own)."""
    return [turn.cache for turn in analysis.turns if turn.cache is not None]


def cache_json(turns: list[CacheTurn]) -> dict[str, Any]:
    """`ctxscope cache --format json` (the names are kept stable: scripts read them)."""
    return {
        "turns": [
            {
                "turn": t.turn,
                "thread": t.thread,
                "key": t.key,
                "previous": t.previous,
                "prefix": t.prefix,
                "best_prefix": t.best_prefix,
                "best_turn": t.best_turn,
                "predicted_cached": t.predicted_cached,
                "reported_cached": t.reported_cached,
                "break": (
                    None
                    if t.brk is None
                    else {"at": t.brk.at, "label": t.brk.label, "cause": t.brk.cause, "tokens": t.brk.tokens}
                ),
                "flag": t.flag,
                "notes": t.notes,
            }
            for t in turns
        ]
    }

"""Finding turns: filter expressions (`kind:compaction changed:cwd tool:apply_patch`) and text search
over every turn's items, fragments and instructions.

Search looks at what each turn brought into its thread (its added items, and its instructions when
they changed), so an item repeated by the following 500 turns of a session is one hit, where it
appeared, and a search over a 1,000-turn recording stays linear in the recording's size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.instructions import base_instructions
from ctxscope.inspector.analysis.item_diff import item_text
from ctxscope.inspector.analysis.world_history import WorldHistory, world_history
from ctxscope.proxy.errors import ConfigError

FILTER_KEYS = ("kind", "changed", "tool", "model", "thread", "status", "fragment")


@dataclass(frozen=True)
class Hit:
    """One search hit: a turn, the item position in its input (None: the instructions), a label."""

    turn: int
    position: int | None
    label: str


def _called_tools(result: TurnAnalysis) -> set[str]:
    """The tools this turn's answer called (the call belongs to the turn that made it, not to the
    next request that carries it as history)."""
    return {str(call.name or "") for call in result.answer.tool_calls}


def _predicate(key: str, value: str, history: WorldHistory) -> Callable[[TurnAnalysis], bool]:
    value = value.lower()
    if key == "kind":
        return lambda r: r.change.kind == value or (value == "compaction" and r.compaction is not None)
    if key == "changed":
        return lambda r: (
            r.turn.number in history.change_turns and any(value in c.field.lower() for c in r.state_changes)
        )
    if key == "tool":
        return lambda r: value in {n.lower() for n in _called_tools(r)}
    if key == "model":
        return lambda r: value in str(r.turn.model or "").lower()
    if key == "thread":
        return lambda r: r.turn.thread.lower() == value
    if key == "status":
        return lambda r: value in r.turn.status.lower()
    return lambda r: any(value in p.kind for i in r.change.added for p in i.fragments)


def _label_test(word: str) -> Callable[[TurnAnalysis], bool]:
    return lambda r: any(word in i.label.lower() for i in r.change.added)


def parse_filter(expression: str, analysis: Analysis) -> Callable[[TurnAnalysis], bool]:
    """A predicate for a filter expression: space-separated `key:value` terms, all of which must
    hold; a bare word matches the turn's item labels. `ConfigError` names an unknown key."""
    history = world_history(analysis) if "changed:" in expression else WorldHistory([], [])
    tests: list[Callable[[TurnAnalysis], bool]] = []
    for term in expression.split():
        key, sep, value = term.partition(":")
        if not sep:
            tests.append(_label_test(term.lower()))
            continue
        if key not in FILTER_KEYS:
            raise ConfigError(f"unknown filter {key!r}: use {', '.join(k + ':' for k in FILTER_KEYS)}")
        tests.append(_predicate(key, value, history))
    return lambda r: all(test(r) for test in tests)


def filter_turns(analysis: Analysis, expression: str) -> list[int]:
    """Numbers of the turns matching a filter expression."""
    keep = parse_filter(expression, analysis)
    return [r.turn.number for r in analysis.turns if keep(r)]


def search(analysis: Analysis, needle: str) -> list[Hit]:
    """Every place `needle` (case-insensitive) appears: instructions where they changed, and each
    item (label, text, pretty JSON) in the turn that added it."""
    want = needle.lower()
    if not want:
        return []
    hits: list[Hit] = []
    seen_instructions: set[str] = set()
    for result in analysis.turns:
        number = result.turn.number
        base = base_instructions(result.turn)
        if base.text and base.text not in seen_instructions:
            seen_instructions.add(base.text)
            if want in base.text.lower():
                hits.append(Hit(number, None, f"instructions ({base.source})"))
        for item in result.change.added:
            if want in item.label.lower() or want in item.text.lower() or want in item_text(item).lower():
                hits.append(Hit(number, item.position, item.label))
    return hits


__all__ = ["FILTER_KEYS", "Hit", "filter_turns", "parse_filter", "search"]

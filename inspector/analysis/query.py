"""Finding turns: filter expressions (`kind:compaction changed:cwd tool:apply_patch`) and text search
over every turn's items, fragments and instructions.

Search counts one hit per matching item (`Place`), however often the words occur in it: the
instructions where they are new, and each item a turn brought into its thread (so an item repeated
by the following 500 turns of a session is one hit, where it appeared). The HTML report's page
searches the same places (embedded in its data), so the TUI and the page count the same hits; a
search over a 1,000-turn recording stays linear in its size.
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


@dataclass(frozen=True)
class Place:
    """One place a search can hit: the definition of a hit (one per matching place, however often
    the words occur in it), shared by the TUI and, through the page's data, the HTML report."""

    turn: int
    where: str
    """`instructions`, or `a<K>`: the turn's K-th added item."""
    position: int | None
    """The item's position in the turn's `input[]` (None: not an item)."""
    label: str
    text: str
    """What is searched (case-insensitively): for an item, its label, text and JSON."""


_JOIN = "\x00"
"""Between the parts of a place's text, so no hit spans two of them."""


def turn_places(result: TurnAnalysis, seen_instructions: set[str]) -> list[Place]:
    """The places of one turn: its instructions where they are new in the recording, and each item
    it added (an item repeated by later turns is found where it appeared; an answer is found as the
    item the next request carries)."""
    number = result.turn.number
    places: list[Place] = []
    base = base_instructions(result.turn)
    if base.text and base.text not in seen_instructions:
        seen_instructions.add(base.text)
        places.append(Place(number, "instructions", None, f"instructions ({base.source})", base.text))
    for k, item in enumerate(result.change.added):
        text = _JOIN.join((item.label, item.text, item_text(item)))
        places.append(Place(number, f"a{k}", item.position, item.label, text))
    return places


def search_places(analysis: Analysis) -> list[Place]:
    """Every place of every turn, in turn order (`turn_places`)."""
    seen: set[str] = set()
    return [place for result in analysis.turns for place in turn_places(result, seen)]


def search(analysis: Analysis, needle: str) -> list[Hit]:
    """One hit per place (`Place`) where `needle` appears, case-insensitively."""
    want = needle.lower()
    if not want:
        return []
    return [Hit(p.turn, p.position, p.label) for p in search_places(analysis) if want in p.text.lower()]


__all__ = ["FILTER_KEYS", "Hit", "Place", "filter_turns", "parse_filter", "search", "search_places", "turn_places"]

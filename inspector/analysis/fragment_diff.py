"""A fragment a turn added, set against the fragment it replaces: AGENTS.md old → new as a line
diff, the environment's fields before → after instead of its whole XML again.

The replaced fragment is the latest one in the previous turn's context of the same kind, or of a
kind that states exactly the same world-state fields (as the fragments' own declarations say:
AGENTS.md and its replacement both set `agents_md`), a log's aside (a goal status is no replacement
for the goal continuation before it). Like is paired with like: permissions and the environment
context share a field (the writable roots) but are never set against each other. After
a compaction the context is sent again in the new window: such a pair is marked `resent`, the
world state re-sent after compaction rather than a replacement. A fragment whose values are short (no
multi-line text) is compared field by field; any other by its text, line by line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxscope.harness.context import ChangeStyle, get_spec, world_fields
from ctxscope.inspector.analysis.item_diff import TextDiff, diff_text
from ctxscope.inspector.analysis.items import Item, Part, fragment_parts

__all__ = ["FragmentDiff", "fragment_diffs"]

_SHORT_VALUE = 200
"""Longest value (as JSON) still compared as a field; longer ones are compared as text."""


@dataclass(frozen=True)
class FragmentDiff:
    """An added fragment and what it replaces."""

    position: int
    """The added item's position in this turn's `input[]`."""
    part: Part
    replaces_position: int
    """The replaced fragment's item position in the previous turn's `input[]`."""
    replaces: Part
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    """Field by field (short values only): name → (before, after), only the ones that differ."""
    text: TextDiff | None = None
    """Line by line, for fragments with long values (None when compared by field)."""
    resent: bool = False
    """Re-sent after a compaction (the new window's context), not a replacement within the window."""


def _fields_of(part: Part) -> frozenset[str]:
    """The world-state fields the fragment states (empty: it says nothing about the world)."""
    try:
        spec = get_spec(part.kind)
    except (KeyError, ValueError):
        return frozenset()
    if spec.world is None:
        return frozenset()
    try:
        return frozenset(spec.world.project(part.values, {}))
    except Exception:  # a projection may expect a state it was not given; then only the kind matches
        return frozenset()


def _logs(fields: frozenset[str]) -> bool:
    """Whether any of `fields` is a log (the goal's events): its fragments add entries, none of them
    replaces another (a goal status is not the continuation message before it)."""
    declared = world_fields()
    return any(name in declared and declared[name].marker.style is ChangeStyle.EVENTS for name in fields)


def _same_subject(old: Part, new: Part, new_fields: frozenset[str]) -> bool:
    if old.kind == new.kind:
        return True
    return bool(new_fields) and new_fields == _fields_of(old) and not _logs(new_fields)


def _short(values: dict[str, Any]) -> bool:
    for value in values.values():
        if isinstance(value, str) and "\n" in value.strip():
            return False
        if len(json.dumps(value, ensure_ascii=False, default=str)) > _SHORT_VALUE:
            return False
    return True


def _diff(position: int, part: Part, where: int, old: Part, resent: bool) -> FragmentDiff | None:
    if old.text == part.text:
        return None
    if _short(part.values) and _short(old.values) and (part.values or old.values):
        names = list(old.values) + [n for n in part.values if n not in old.values]
        fields = {
            n: (old.values.get(n), part.values.get(n))
            for n in names
            if old.values.get(n) != part.values.get(n)
        }
        if fields:
            return FragmentDiff(position, part, where, old, fields=fields, resent=resent)
    return FragmentDiff(position, part, where, old, text=diff_text(old.text, part.text), resent=resent)


def _replaced(earlier: list[tuple[int, Part]], part: Part) -> tuple[int, Part] | None:
    """The latest earlier part `part` replaces, the likest first: the same fragment (kind and
    label); one stating the same world fields about the same subject (AGENTS.md of ./pkg and its
    replacement form); the same kind and label head (a goal status against the status before it,
    not the objective message); the same kind; the same world fields (AGENTS.md of . → of ./pkg)."""
    fields = _fields_of(part)
    head, _, subject = part.label.partition(":")
    tests: tuple[Callable[[Part], bool], ...] = (
        lambda old: old.kind == part.kind and old.label == part.label,
        lambda old: bool(subject)
        and old.label.partition(":")[2] == subject
        and bool(fields)
        and fields == _fields_of(old)
        and not _logs(fields),
        lambda old: old.kind == part.kind and old.label.partition(":")[0] == head,
        lambda old: old.kind == part.kind,
        lambda old: _same_subject(old, part, fields),
    )
    for test in tests:
        found = next((e for e in reversed(earlier) if test(e[1])), None)
        if found is not None:
            return found
    return None


def fragment_diffs(previous: Sequence[Item], added: Sequence[Item], *, compaction: bool = False) -> list[FragmentDiff]:
    """Each fragment in `added` that replaces one in `previous` (the last turn's context), diffed;
    with `compaction` (the turn opens a new window), each is marked re-sent."""
    new = [(item, part) for item in added for part in item.fragments]
    if not new:
        return []
    # the previous turn's fragments, worked out once per item list (`ItemList.fragment_parts`)
    earlier = fragment_parts(previous)
    out: list[FragmentDiff] = []
    for item, part in new:
        match = _replaced(earlier, part)
        if match is not None and (found := _diff(item.position, part, *match, compaction)) is not None:
            out.append(found)
    return out

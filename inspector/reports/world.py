"""World state in reports: the published key names of `ctxscope-report/1` and the sentences that
tell a `StateChange`.

Field names are the harness's (`current_date`, `sandbox_mode`); the report keeps the names it was
published with (`date`, `sandbox`) through `PUBLISHED_KEYS`, the only place they are spelled. A
field not listed (a fragment kind added later) is published under its own name. How a change
reads follows the field's `StateField` (label and style); the wording of each style is here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic_core import to_jsonable_python

from ctxscope.harness.context import ChangeStyle, StateField, WorldField, world_fields
from ctxscope.inspector.analysis.goal_events import GoalEvent, GoalEventKind
from ctxscope.inspector.analysis.world_state import ObservedState, StateChange

__all__ = ["PUBLISHED_KEYS", "describe_change", "describe_changes", "goal_event_sentence", "world_state_doc"]

# Field name → key in the report's `world_state`, in the order the report lists them.
PUBLISHED_KEYS: dict[str, str] = {
    "cwd": "cwd",
    "shell": "shell",
    "current_date": "date",
    "timezone": "timezone",
    "sandbox_mode": "sandbox",
    "approval_policy": "approval",
    "network_enabled": "network",
    "writable_roots": "writable_roots",
    "collaboration_mode": "collaboration_mode",
    "agents_md": "agents_md",
    "skills": "skills",
    "selected_skills": "selected_skills",
    "goal": "goal",
    "goal_events": "goal_events",
    "personality": "personality",
    "model": "model",
    "reasoning_effort": "reasoning_effort",
    "context_model": "context_model",
}
# The request's own settings: published even when null; other fields only once the context set them.
_REQUEST_FIELDS = ("model", "reasoning_effort")
# Sentences come grouped by style (plain values first), then in `PUBLISHED_KEYS` order.
_STYLE_ORDER = (
    ChangeStyle.VALUE,
    ChangeStyle.LIST,
    ChangeStyle.DOCUMENTS,
    ChangeStyle.MEMBERS,
    ChangeStyle.SELECTED,
    ChangeStyle.TEXT,
    ChangeStyle.EVENTS,
    ChangeStyle.HIDDEN,
)


def _marker(name: str, fields: dict[str, WorldField] | None = None) -> StateField:
    field = (world_fields() if fields is None else fields).get(name)
    return field.marker if field is not None else StateField(name.replace("_", " "))


_PLAIN = frozenset({str, int, float, bool})
"""Types `to_jsonable_python` returns as they are (exactly these: a str enum is turned into its value)."""


def _published_value(marker: StateField, value: Any) -> Any:
    if marker.key is not None and isinstance(value, list):
        return sorted(str(getattr(m, marker.key, m)) for m in value)  # members by name
    return value if type(value) in _PLAIN else to_jsonable_python(value)


def world_state_doc(state: ObservedState) -> dict[str, Any]:
    """The report's `world_state`: the fields the context set, under their published keys."""
    values = state.values()
    fields = world_fields()  # once, not once per field: the index builds this for every turn
    out: dict[str, Any] = {}
    for name in [n for n in PUBLISHED_KEYS if n in values] + [n for n in values if n not in PUBLISHED_KEYS]:
        value = values[name]
        if value is None and name not in _REQUEST_FIELDS:
            continue
        out[PUBLISHED_KEYS.get(name, name)] = _published_value(_marker(name, fields), value)
    return out


def _short(value: Any, marker: StateField, limit: int = 200) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        off, on = marker.words or ("false", "true")
        return on if value else off
    if isinstance(value, list):
        text = ", ".join(str(v) for v in value) or "none"
    else:
        text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _documents(label: str, change: StateChange) -> list[str]:
    before: dict[str, str] = change.before or {}
    after: dict[str, str] = change.after or {}
    if before == after:
        return []
    if change.replaced or (before and after and not set(before) & set(after)):
        old = ", ".join(sorted(before)) or "none"
        new = ", ".join(sorted(after)) or "none"
        return [
            f"{label} replaced: {old} → {new}" if old != new else f"{label} replaced: {new} (text changed)"
        ]
    out = [f"{label} added: {p}" for p in sorted(set(after) - set(before))]
    out += [f"{label} removed: {p}" for p in sorted(set(before) - set(after))]
    out += [f"{label} changed: {p}" for p in sorted(set(before) & set(after)) if before[p] != after[p]]
    return out


def _members(marker: StateField, change: StateChange) -> list[str]:
    def names(value: Any) -> set[str]:
        return {str(getattr(m, marker.key, m) if marker.key else m) for m in value or []}

    old, new = names(change.before), names(change.after)
    if old == new:
        return []
    delta = [f"+{s}" for s in sorted(new - old)] + [f"-{s}" for s in sorted(old - new)]
    return [f"{marker.label} changed: " + " ".join(delta)]


def describe_change(change: StateChange) -> list[str]:
    """The sentences that tell one change (none when it has nothing to tell)."""
    marker = _marker(change.field)
    label, before, after = marker.label, change.before, change.after
    if marker.style is ChangeStyle.LIST:
        return [f"{label} changed: {_short(before, marker)} → {_short(after, marker)}"]
    if marker.style is ChangeStyle.DOCUMENTS:
        return _documents(label, change)
    if marker.style is ChangeStyle.MEMBERS:
        return _members(marker, change)
    if marker.style is ChangeStyle.SELECTED:
        # A selection only goes when the context is rebuilt (a compaction that did not bring it back).
        gone = [f"{label} {name} no longer in context" for name in before or [] if name not in (after or [])]
        return [f"{label} {name} selected" for name in after or [] if name not in (before or [])] + gone
    if marker.style is ChangeStyle.TEXT:
        # A value only goes when the context is rebuilt without it (a compaction, a fresh window):
        # nothing is sent when a goal is cleared, so "cleared" would claim what the wire never said.
        return [f"{label} set: {_short(after, marker, 80)}" if after else f"{label} no longer in context"]
    if marker.style is ChangeStyle.HIDDEN:
        return [f"{label} changed"]
    if marker.style is ChangeStyle.EVENTS:
        old, new = list(before or []), list(after or [])
        # A log rebuilt shorter (a compaction) tells nothing until it grows past what was told.
        return [f"{label} {entry}" for entry in new[len(old) :]] if new[: len(old)] == old else []
    if after is None and before is not None:
        return [f"{label} {_short(before, marker)} no longer in context"]
    return [f"{label} {_short(before, marker)} → {_short(after, marker)}"]


def goal_event_sentence(event: GoalEvent) -> str:
    """`goal set: write a haiku`, `goal continuation #3`, `goal paused`, `goal budget reached`."""
    label = _marker("goal_events").label
    if event.kind is GoalEventKind.SET:
        return f"{label} set: {_short(event.objective, _marker('goal'), 80)}"
    if event.kind is GoalEventKind.CONTINUATION:
        return f"{label} continuation #{event.number}"
    return f"{label} {event.kind.value}"


def describe_changes(changes: Iterable[StateChange]) -> list[str]:
    """The sentences of a turn's changes, in the report's order: by style, then by published key."""
    changes = list(changes)
    if not changes:  # most turns: nothing to rank (every view asks, the index for every turn)
        return []
    order = {name: i for i, name in enumerate(PUBLISHED_KEYS)}

    def rank(indexed: tuple[int, StateChange]) -> tuple[int, int, int]:
        index, change = indexed
        return (_STYLE_ORDER.index(_marker(change.field).style), order.get(change.field, len(order)), index)

    told = [s for _, change in sorted(enumerate(changes), key=rank) for s in describe_change(change)]
    # A value that went because an event of the same field label says why (`goal cleared`) is told
    # by that event alone, not also as `goal no longer in context`.
    gone = {s.removesuffix(" cleared") for s in told if s.endswith(" cleared")}
    return [
        s for s in told if not (s.endswith(" no longer in context") and s.rsplit(" no longer", 1)[0] in gone)
    ]

"""The world-state panel: the typed values at a turn, each with the turn where it got its value."""

from __future__ import annotations

from typing import Any

from harness.context import ChangeStyle, StateField, world_fields
from inspector.analysis.world_history import WorldHistory
from inspector.tui.viewmodel.lines import Line, Run, clip

_FIRST = ("model", "reasoning_effort")
"""The request's own settings lead the pane; the context's fields follow in declaration order."""


def panel_fields() -> list[tuple[str, StateField]]:
    """(field, its declaration) in the order the pane lists them: every listed world-state field."""
    fields = world_fields()
    names = [*(n for n in _FIRST if n in fields), *(n for n in fields if n not in _FIRST)]
    return [(name, fields[name].marker) for name in names if fields[name].marker.listed]


def show_value(marker: StateField, value: Any) -> str:
    """A state value as one short line, as its declaration says it reads."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        off, on = marker.words or ("false", "true")
        return on if value else off
    if marker.style is ChangeStyle.DOCUMENTS and isinstance(value, dict):
        return ", ".join(sorted(str(k) for k in value)) or "none"
    if marker.style is ChangeStyle.HIDDEN:
        return "set"
    if marker.style is ChangeStyle.EVENTS and isinstance(value, list):
        # A log: the latest entry says where things stand ("continuation #35", "paused").
        return (
            f"{value[-1]} ({len(value)} events)" if len(value) > 1 else (str(value[0]) if value else "none")
        )
    if isinstance(value, list):
        return ", ".join(str(getattr(v, marker.key or "name", v)) for v in value) or "none"
    return str(value)


def world_lines(state: dict[str, Any], history: WorldHistory, turn: int, *, width: int = 60) -> list[Line]:
    """`state`: the turn's world-state values by field name (`ObservedState.values()`)."""
    return _lines(state, history, turn, width)


def _lines(state: dict[str, Any], history: WorldHistory, turn: int, width: int) -> list[Line]:
    """One line per known state value: label, `@N` (the turn it got its value; `*`: at this turn,
    where the world state changed), and the value."""
    changed_turn = turn in history.change_turns
    lines = [
        Line.plain(f"World state at turn {turn}", "title"),
        Line.plain("@N: value since turn N, *: changed here", "dim"),
    ]
    for key, marker in panel_fields():
        if state.get(key) is None and key not in ("model", "cwd"):
            continue
        since = history.since(turn, key)
        here = changed_turn and since == turn
        mark = f"@{since}{'*' if here else ''}" if since is not None else ""
        runs = [
            Run(f"{marker.name:<10}", "dim"),
            Run(f"{mark:<6}", "changed" if here else "world"),
            Run(clip(show_value(marker, state.get(key)), width), "changed" if here else ""),
        ]
        lines.append(Line(tuple(runs)))
    previous, following = history.previous_change(turn), history.next_change(turn)
    lines.append(Line.plain(f"[ changed at {previous or '-'}   ] changed at {following or '-'}", "dim"))
    return lines


__all__ = ["panel_fields", "show_value", "world_lines"]

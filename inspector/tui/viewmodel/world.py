"""The world-state panel: the typed values at a turn, each with the turn where it got its value."""

from __future__ import annotations

from typing import Any

from ctxscope.harness.context import ChangeStyle, StateField, world_fields
from ctxscope.inspector.analysis.world_history import WorldHistory
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, clip, wrapped

LEGEND = "@N: value since turn N; *: changed here; gone: left the context"
TIMELINE_LEGEND = (
    "signs: w world, c cache break, ! error, M mark, rep/cnt tokens reported/counted, #... window, $ the request's cost"
)
"""The signs of the timeline row, said once where the reader looks for the state (and in `?`)."""
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
        return f"{value[-1]} ({len(value)} events)" if len(value) > 1 else (str(value[0]) if value else "none")
    if isinstance(value, list):
        return ", ".join(str(getattr(v, marker.key or "name", v)) for v in value) or "none"
    return str(value)


def world_lines(state: dict[str, Any], history: WorldHistory, turn: int, *, width: int = 60) -> list[Line]:
    """`state`: the turn's world-state values by field name (`ObservedState.values()`)."""
    return _lines(state, history, turn, width)


def _lines(state: dict[str, Any], history: WorldHistory, turn: int, width: int) -> list[Line]:
    """One line per known state value: label, `@N` (the turn it got its value; `*`: at this turn,
    where the world state changed), and the value. A value that left the context (a skill no
    longer selected, a cleared goal) stays listed as gone, dimmed, until it comes back."""
    changed_turn = turn in history.change_turns
    lines = [Line.plain(f"World state at turn {turn}", "title"), *wrapped(LEGEND, width, "dim")]
    fields = panel_fields()
    label = max(len(marker.name) for _, marker in fields) + 1  # `enforcement @1`, never `enforcement@1`
    for key, marker in fields:
        since = history.since(turn, key)
        if state.get(key) is None and key not in ("model", "cwd"):
            if since is not None:  # the mark moved when the value went: it left the context there
                here = changed_turn and since == turn
                gone = f"gone at turn {since}" + (" (here)" if here else "")
                lines.append(Line((Run(f"{marker.name:<{label}}", "dim"), Run(f"{'':<6}"), Run(gone, "gone"))))
            continue
        here = changed_turn and since == turn
        mark = f"@{since}{'*' if here else ''}" if since is not None else ""
        runs = [
            Run(f"{marker.name:<{label}}", "dim"),
            Run(f"{mark:<6}", "changed" if here else "world"),
            Run(clip(show_value(marker, state.get(key)), max(8, width - label - 6)), "changed" if here else ""),
        ]
        lines.append(Line(tuple(runs)))
    lines += wrapped(jump_hint(history.previous_change(turn), history.next_change(turn)), width, "dim")
    lines += wrapped(TIMELINE_LEGEND, width, "dim")
    return lines


def jump_hint(previous: int | None, following: int | None) -> str:
    """What `[` and `]` go to, in words."""
    before = f"turn {previous}" if previous else "none"
    after = f"turn {following}" if following else "none"
    return f"[ previous change: {before};  ] next change: {after}"


__all__ = ["LEGEND", "TIMELINE_LEGEND", "jump_hint", "panel_fields", "show_value", "world_lines"]

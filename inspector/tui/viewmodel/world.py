"""The world-state panel: the typed values at a turn, each with the turn where it got its value."""

from __future__ import annotations

from typing import Any

from inspector.analysis.world_history import WorldHistory
from inspector.tui.viewmodel.lines import Line, Run, clip

FIELDS = (
    ("model", "model"),
    ("reasoning_effort", "reasoning"),
    ("collaboration_mode", "mode"),
    ("goal", "goal"),
    ("cwd", "cwd"),
    ("sandbox_mode", "sandbox"),
    ("approval_policy", "approval"),
    ("network_enabled", "network"),
    ("writable_roots", "writable"),
    ("agents_md", "AGENTS.md"),
    ("skills", "skills"),
    ("selected_skills", "selected"),
    ("shell", "shell"),
    ("current_date", "date"),
    ("timezone", "timezone"),
    ("personality", "personality"),
    ("context_model", "switch"),
)
"""World-state field → label, in the order the panel lists them (other set fields follow)."""
_HIDDEN = frozenset({"agents_docs"})
"""Fields shown through another (the AGENTS.md documents are `agents_md` by path)."""


def show_value(key: str, value: Any) -> str:
    """A state value as one short line."""
    if value is None:
        return "-"
    if key == "network_enabled" and isinstance(value, bool):
        return "enabled" if value else "restricted"
    if key == "agents_md" and isinstance(value, dict):
        return ", ".join(sorted(str(k) for k in value)) or "none"
    if key == "personality":
        return "set"
    if isinstance(value, list):
        return ", ".join(str(getattr(v, "name", v)) for v in value) or "none"
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
    known = {key for key, _ in FIELDS}
    extra = [(k, k) for k, v in state.items() if k not in known and k not in _HIDDEN and v is not None]
    for key, label in (*FIELDS, *extra):
        if state.get(key) is None and key not in ("model", "cwd"):
            continue
        since = history.since(turn, key)
        here = changed_turn and since == turn
        mark = f"@{since}{'*' if here else ''}" if since is not None else ""
        runs = [
            Run(f"{label:<10}", "dim"),
            Run(f"{mark:<6}", "changed" if here else "world"),
            Run(clip(show_value(key, state.get(key)), width), "changed" if here else ""),
        ]
        lines.append(Line(tuple(runs)))
    previous, following = history.previous_change(turn), history.next_change(turn)
    lines.append(Line.plain(f"[ changed at {previous or '-'}   ] changed at {following or '-'}", "dim"))
    return lines


__all__ = ["FIELDS", "show_value", "world_lines"]

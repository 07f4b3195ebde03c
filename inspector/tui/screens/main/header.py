"""The main screen's status line, from its state: plain Python (the screen's watchers call it)."""

from __future__ import annotations

from dataclasses import dataclass

from ctxscope.inspector.tui.viewmodel import Inspector
from ctxscope.inspector.tui.viewmodel.lines import count


@dataclass(frozen=True)
class HeaderState:
    """What the header says besides the inspector's own marks, filter and search."""

    name: str
    current: int | None
    view: str
    hit_index: int | None = None
    pending: int = 0
    following: bool = False
    new_turns: int = 0
    note: str = ""


def header_text(inspector: Inspector, state: HeaderState) -> str:
    """`ctxscope inspect  FILE | turn 3 of 9 | view turn | following`, ..."""
    parts = [f"ctxscope inspect  {state.name}", inspector.timeline_title(state.current), f"view {state.view}"]
    if inspector.api_equivalent():
        parts.append("costs API-equivalent (ChatGPT login)")
    if inspector.marked is not None:
        parts.append(f"diff vs marked turn {inspector.marked}")
    if inspector.hits:
        at = f"{state.hit_index + 1} of " if state.hit_index is not None else ""
        parts.append(f"search {inspector.needle!r}: {at}{count(len(inspector.hits), 'hit')}")
    if state.pending:
        model = inspector  # an alias: the dotted chain from the parameter reads as an old module path
        done = len(model.analysis.turns) + model.other_requests
        parts.append(f"analysing {state.pending} more requests ({100 * done // (done + state.pending)}% done)")
    if state.following:
        parts.append("following")
    if state.new_turns:
        parts.append(f"+{state.new_turns} new turns (F to follow)")
    if state.note:
        parts.append(state.note)
    return " | ".join(parts)


__all__ = ["HeaderState", "header_text"]

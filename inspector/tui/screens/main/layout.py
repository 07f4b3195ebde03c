"""Which panes the main screen shows at a width, and where: plain Python, so the choice is tested
without a terminal.

From 120 columns all three: the timeline with the world state under it on the left (the timeline
only as tall as its rows, so no empty band is left below it), the turn view the whole height on the
right. From 100 the timeline and one more pane (the turn view or the world state). Below 100 one
pane, where a timeline row could not keep its figures beside a readable turn view. Tab moves
between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Pane = Literal["timeline", "turn", "world"]
PANES: tuple[Pane, ...] = ("timeline", "turn", "world")
THREE_PANES = 120
TWO_PANES = 100
"""From this many columns the timeline and one more pane side by side; one pane below."""


@dataclass(frozen=True)
class Layout:
    """The panes shown and the screen's layout class (`-wide`, `-medium`, `-narrow`)."""

    shown: frozenset[Pane]
    css_class: Literal["-wide", "-medium", "-narrow"]


def layout_for(width: int, pane: Pane, right: Pane) -> Layout:
    """The layout at `width` columns, with `pane` focused and `right` the pane beside the timeline
    when only two fit."""
    if width >= THREE_PANES:
        return Layout(frozenset(PANES), "-wide")
    if width >= TWO_PANES:
        return Layout(frozenset({"timeline", right}), "-medium")
    return Layout(frozenset({pane}), "-narrow")


def next_pane(pane: Pane, step: int) -> Pane:
    """The pane `step` places after `pane` in Tab order (wrapping)."""
    return PANES[(PANES.index(pane) + step) % len(PANES)]


__all__ = ["PANES", "THREE_PANES", "TWO_PANES", "Layout", "Pane", "layout_for", "next_pane"]

"""What Enter on a display line does, as typed values: the view model attaches one to a line, the
widgets turn it into a message (`messages.activation`) and the screens read its fields. No action is
a string to parse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ShowTurn:
    """A line that stands for turn `number` (a timeline row, a composition bar)."""

    number: int


@dataclass(frozen=True)
class OpenItem:
    """An item of turn `turn`'s `input[]` at `position`: Enter shows it whole."""

    turn: int
    position: int


@dataclass(frozen=True)
class ToggleFold:
    """A folded run (or an open one), keyed by section and position (`input:0`)."""

    fold_id: str


@dataclass(frozen=True)
class ShowTool:
    """A tool of `tools[]`, by name."""

    name: str


@dataclass(frozen=True)
class OpenSummary:
    """A summary row of the timeline: `others` (requests that are not turns) or `side` (folded
    side requests)."""

    row: Literal["others", "side"]


@dataclass(frozen=True)
class ShowPair:
    """An aligned pair of the compare screen (1-based row)."""

    index: int


@dataclass(frozen=True)
class OpenTexts:
    """Two texts that differ (the compare screen's fragment, parameter or instructions): Enter shows
    the old and the new text whole."""

    title: str
    old: str
    new: str


LineAction = ShowTurn | OpenItem | ToggleFold | ShowTool | OpenSummary | ShowPair | OpenTexts
"""Every action a display line can carry."""

__all__ = [
    "LineAction",
    "OpenItem",
    "OpenSummary",
    "OpenTexts",
    "ShowPair",
    "ShowTool",
    "ShowTurn",
    "ToggleFold",
]

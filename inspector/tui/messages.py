"""The inspector's typed messages, in one place: what a pane tells its screen. A display line's
typed action (`viewmodel.actions`) becomes its message here (`activation`), so screens handle
messages with typed fields.
"""

from __future__ import annotations

from typing import Literal

from textual.message import Message

from ctxscope.inspector.live import LiveEvent
from ctxscope.inspector.tui.viewmodel.actions import (
    LineAction,
    OpenItem,
    OpenSummary,
    OpenTexts,
    ShowTurn,
    ToggleFold,
)


class TurnHighlighted(Message):
    """The timeline's cursor is on turn `number`."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number


class TurnChosen(Message):
    """Enter on a line that stands for turn `number` outside the timeline (an agent, a request of
    the cost view, a composition bar): the timeline moves there."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number


class TimelineResized(Message):
    """The timeline pane changed width: its rows are to be drawn again."""


class FoldToggled(Message):
    """Enter on a folded run (or an open one): open or close fold `fold_id`."""

    def __init__(self, fold_id: str) -> None:
        super().__init__()
        self.fold_id = fold_id


class ItemOpened(Message):
    """Enter on an item: show the item `ref` points at whole."""

    def __init__(self, ref: OpenItem) -> None:
        super().__init__()
        self.ref = ref


class RowOpened(Message):
    """Enter on a summary row of the timeline: `others` (requests that are not turns) or `side`
    (the folded side requests)."""

    def __init__(self, row: Literal["others", "side"]) -> None:
        super().__init__()
        self.row = row


class TextsOpened(Message):
    """Enter on a line that differs between two texts: show the old and the new text whole."""

    def __init__(self, texts: OpenTexts) -> None:
        super().__init__()
        self.texts = texts


class LiveArrived(Message):
    """The live feed published `event` (new turns, or that it stopped); posted from its thread."""

    def __init__(self, event: LiveEvent) -> None:
        super().__init__()
        self.event = event


def activation(action: LineAction) -> Message | None:
    """The message Enter on a line with `action` posts (None: the line does nothing on Enter)."""
    if isinstance(action, ToggleFold):
        return FoldToggled(action.fold_id)
    if isinstance(action, OpenItem):
        return ItemOpened(action)
    if isinstance(action, OpenSummary):
        return RowOpened(action.row)
    if isinstance(action, OpenTexts):
        return TextsOpened(action)
    if isinstance(action, ShowTurn):
        return TurnChosen(action.number)
    return None


__all__ = [
    "FoldToggled",
    "ItemOpened",
    "LiveArrived",
    "RowOpened",
    "TextsOpened",
    "TimelineResized",
    "TurnChosen",
    "TurnHighlighted",
    "activation",
]

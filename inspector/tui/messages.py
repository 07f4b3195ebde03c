"""The inspector's typed messages, in one place: what a pane tells its screen. A display line's
action string (`fold:<id>`, `item:<turn>:<position>`, `turn:<n>`, `others`, `side`) is read here
once (`activation`), so screens handle typed messages instead of parsing strings.
"""

from __future__ import annotations

from textual.message import Message


class TurnHighlighted(Message):
    """The timeline's cursor is on turn `number`."""

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
    """Enter on an item: show item `ref` (`item:<turn>:<position>`) whole."""

    def __init__(self, ref: str) -> None:
        super().__init__()
        self.ref = ref


class RowOpened(Message):
    """Enter on a summary row of the timeline: `others` (requests that are not turns) or `side`
    (the folded side requests)."""

    def __init__(self, row: str) -> None:
        super().__init__()
        self.row = row


def activation(action: str) -> Message | None:
    """The message Enter on a line with `action` posts (None: the line does nothing)."""
    if action.startswith("fold:"):
        return FoldToggled(action[len("fold:") :])
    if action.startswith("item:"):
        return ItemOpened(action)
    if action in ("others", "side"):
        return RowOpened(action)
    return None


__all__ = ["FoldToggled", "ItemOpened", "RowOpened", "TimelineResized", "TurnHighlighted", "activation"]

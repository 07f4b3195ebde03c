"""The timeline pane: one line per turn; posts `Timeline.TurnHighlighted` as the cursor moves."""

from __future__ import annotations

from textual.message import Message
from textual.widgets import OptionList

from inspector.tui.viewmodel import Line
from inspector.tui.widgets.lines_view import LinesView


def turn_of(line: Line) -> int | None:
    """The turn number a timeline line stands for."""
    if line.action and line.action.startswith("turn:"):
        return int(line.action.split(":")[1])
    return None


class Timeline(LinesView):
    """Every turn of the recording (or the filtered ones)."""

    class TurnHighlighted(Message):
        """The cursor is on turn `number`."""

        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def highlighted_turn(self) -> int | None:
        """The turn under the cursor."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self.lines):
            return None
        return turn_of(self.lines[index])

    def go_to(self, number: int) -> bool:
        """Move the cursor to turn `number`; False when it is not shown (filtered out)."""
        for index, line in enumerate(self.lines):
            if turn_of(line) == number:
                self.highlighted = index
                return True
        return False

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        number = turn_of(self.lines[event.option_index]) if event.option_index < len(self.lines) else None
        if number is not None:
            self.post_message(self.TurnHighlighted(number))


__all__ = ["Timeline", "turn_of"]

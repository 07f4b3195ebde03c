"""The timeline pane: one line per turn; posts `TurnHighlighted` as the cursor moves."""

from __future__ import annotations

from textual.events import Resize
from textual.widgets import OptionList

from ctxscope.inspector.tui.messages import TimelineResized, TurnHighlighted
from ctxscope.inspector.tui.viewmodel import Line
from ctxscope.inspector.tui.viewmodel.actions import ShowTurn
from ctxscope.inspector.tui.widgets.lines_view import LinesView


def turn_of(line: Line) -> int | None:
    """The turn number a timeline line stands for."""
    return line.action.number if isinstance(line.action, ShowTurn) else None


class Timeline(LinesView):
    """Every turn of the recording (or the filtered ones)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._drawn_width = 0

    @property
    def row_width(self) -> int:
        """The columns a row may use: inside the border and padding, left of the scrollbar's
        gutter (kept even when there is no scrollbar, so it never covers a figure)."""
        return max(20, self.size.width - self.styles.scrollbar_size_vertical)

    def on_resize(self, event: Resize) -> None:
        if self.row_width != self._drawn_width:
            self.post_message(TimelineResized())

    def on_show(self) -> None:
        if self.row_width != self._drawn_width:  # a pane hidden at the last resize has a new width
            self.post_message(TimelineResized())

    def show_lines(self, lines: list[Line], *, keep: bool = True) -> None:
        self._drawn_width = self.row_width
        super().show_lines(lines, keep=keep)

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
        if event.option_index != self.highlighted:  # stale: the cursor moved again (a redraw) since
            return
        number = turn_of(self.lines[event.option_index]) if event.option_index < len(self.lines) else None
        if number is not None:
            self.post_message(TurnHighlighted(number))


__all__ = ["Timeline", "turn_of"]

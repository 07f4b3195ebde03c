"""A list of display lines with a cursor: the base of every pane (an `OptionList`, so thousands of
lines stay fast; `ListView` mounts a widget per row and is far too slow for long recordings)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ctxscope.inspector.tui.messages import activation
from ctxscope.inspector.tui.viewmodel import Line
from ctxscope.inspector.tui.viewmodel.actions import LineAction
from ctxscope.inspector.tui.widgets.render import to_text


class LinesView(OptionList):
    """Shows `Line`s; Enter on a line with an action posts its typed message (`messages`)."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.lines: list[Line] = []
        self.needle = ""
        """A search term to highlight wherever it appears in the lines."""
        self.wrap = False
        """Long lines wrap onto the next rows instead of ending in an ellipsis."""

    def show_lines(self, lines: list[Line], *, keep: bool = True) -> None:
        """Replace the lines; with `keep`, the cursor stays on the same line number (clamped)."""
        at = self.highlighted if keep else None
        self.lines = lines
        self.set_options(Option(to_text(line, self.needle, wrap=self.wrap), id=None) for line in lines)
        if lines:
            self.highlighted = min(at or 0, len(lines) - 1)

    def toggle_wrap(self) -> None:
        """Long lines wrap onto the next rows, or end in an ellipsis again."""
        self.wrap = not self.wrap
        self.set_class(self.wrap, "-wrap")
        self.show_lines(self.lines)

    def action_cursor_down(self) -> None:
        """Down one line; stops at the last line (holding the key never wraps to the top)."""
        if self.option_count and (self.highlighted is None or self.highlighted < self.option_count - 1):
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        """Up one line; stops at the first line."""
        if self.option_count and (self.highlighted is None or self.highlighted > 0):
            super().action_cursor_up()

    @property
    def current_action(self) -> LineAction | None:
        """The action of the highlighted line."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self.lines):
            return None
        return self.lines[index].action

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        action = self.lines[event.option_index].action if event.option_index < len(self.lines) else None
        message = activation(action) if action is not None else None
        if message is not None:
            self.post_message(message)


__all__ = ["LinesView"]

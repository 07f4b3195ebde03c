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
        self._drawn_as: tuple[str, bool] | None = None
        """(needle, wrap) the options were last all drawn with: lines drawn otherwise are drawn anew."""

    def show_lines(self, lines: list[Line], *, keep: bool = True) -> None:
        """Replace the lines; with `keep`, the cursor stays on the same line number (clamped).

        With `keep`, lines equal to those drawn are not drawn again: a growing recording's timeline
        (a stage of a long file, a followed turn) adds its new rows and redraws only the rows that
        changed, where setting every option anew measures every row's height again (about 0.1 s a
        thousand rows)."""
        at = self.highlighted if keep else None
        drawn, self.lines = self.lines, lines
        if not (keep and self._update_in_place(drawn, lines)):
            self.set_options(self._option(line) for line in lines)
            self._drawn_as = (self.needle, self.wrap)
        if lines:
            self.highlighted = min(at or 0, len(lines) - 1)

    def _option(self, line: Line) -> Option:
        return Option(to_text(line, self.needle, wrap=self.wrap), id=None)

    def _update_in_place(self, drawn: list[Line], lines: list[Line]) -> bool:
        """Turn the drawn options into `lines` by replacing the few that differ and adding the rest;
        False (nothing done) when that is not cheaper than drawing them all: fewer lines than drawn,
        many changed, or the needle or the wrapping changed since (`_drawn_as`)."""
        if self._drawn_as != (self.needle, self.wrap) or len(lines) < len(drawn) or len(drawn) != self.option_count:
            return False
        changed = [i for i, (was, now) in enumerate(zip(drawn, lines, strict=False)) if was is not now and was != now]
        if len(changed) > max(8, len(drawn) // 16):
            return False
        # Each replaced prompt drops the list's height cache, which is rebuilt once, on the next
        # draw, from the options' kept renderings: only the replaced and added rows are rendered.
        for index in changed:
            self.replace_option_prompt_at_index(index, to_text(lines[index], self.needle, wrap=self.wrap))
        self.add_options(self._option(line) for line in lines[len(drawn) :])
        return True

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

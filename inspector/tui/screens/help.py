"""`?`: every key of the inspector, in one table."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

KEYS = (
    ("up/down, j/k", "move between turns (timeline) or lines (other panes)"),
    ("tab / shift+tab", "next / previous pane (one pane below 80 columns, two below 120)"),
    ("enter", "open a folded run, or the full text of an item"),
    ("m", "mark this turn: every other turn is then diffed against it (m again: unmark)"),
    ("d / c / t", "turn diff / compaction view / tokens view"),
    ("s", "tokens view: sort by tokens or by name"),
    ("w", "world-state pane"),
    ("[ / ]", "previous / next turn where the world state changed"),
    ("/", "search every turn's items, fragments and instructions"),
    ("n / N", "next / previous search hit"),
    ("f", "filter: kind:compaction changed:cwd tool:apply_patch model: thread: status:"),
    ("g", "go to turn N"),
    ("y", "copy the highlighted item's JSON"),
    ("e", "export this turn as markdown to a file"),
    ("F", "follow: jump to new turns as they land (with --follow)"),
    ("ctrl+p", "command palette: every action, go to turn N, diff turn A with B"),
    ("?", "this help"),
    ("q", "quit"),
)
"""Key → what it does; also the README's key table."""


class HelpScreen(ModalScreen[None]):
    """The key table."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label("ctxscope inspect: keys  (escape to close)", id="help-title")
            table: DataTable[str] = DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
            table.add_columns("key", "action")
            for key, action in KEYS:
                table.add_row(key, action)
            yield table

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["KEYS", "HelpScreen"]

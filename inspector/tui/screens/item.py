"""The full text of one item: read-only, truncated past a size with an explicit expand action."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from ctxscope.inspector.tui.viewmodel import ItemDetail
from ctxscope.inspector.tui.widgets.key_bar import KeyBar

WRAP_LIMIT = 2_000
"""Longest line (characters) that is soft-wrapped."""


class ItemScreen(ModalScreen[None]):
    """Shows an `ItemDetail`; `x` loads the rest of a truncated text, `y` copies the item's JSON."""

    BINDINGS = [
        Binding("escape,q", "close", "Close"),
        Binding("x", "expand", "Expand"),
        Binding("y", "copy", "Copy JSON"),
    ]

    def __init__(self, detail: ItemDetail, full: ItemDetail | None = None) -> None:
        super().__init__()
        self.detail = detail
        self.full = full

    def compose(self) -> ComposeResult:
        with Vertical(id="item-box"):
            yield Label(self.detail.title, id="item-title")
            # Wrapping a very long line is slow in TextArea; such texts scroll sideways instead.
            wrap = max(map(len, self.detail.text.splitlines()), default=0) <= WRAP_LIMIT
            yield TextArea(self.detail.text, read_only=True, id="item-text", soft_wrap=wrap)
            yield Label(self._status(), id="item-status")
        yield KeyBar()

    def _status(self) -> str:
        if self.detail.truncated:
            return f"{self.detail.truncated:,} more characters not shown: x to expand"
        return f"{len(self.detail.text):,} characters"

    def action_close(self) -> None:
        self.dismiss(None)

    def action_expand(self) -> None:
        if self.full is None or not self.detail.truncated:
            return
        self.detail = self.full
        self.query_one("#item-text", TextArea).load_text(self.detail.text)
        self.query_one("#item-status", Label).update(self._status())

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.detail.json)
        self.notify("item JSON copied to the clipboard")


__all__ = ["ItemScreen"]

"""Two texts whole, A's beside B's (below each other under 100 columns): what Enter opens on a line
of the compare screen that differs."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from ctxscope.inspector.tui.viewmodel.actions import OpenTexts
from ctxscope.inspector.tui.widgets.key_bar import KeyBar

WRAP_LIMIT = 2_000
"""Longest line (characters) that is soft-wrapped (a longer one scrolls sideways: wrapping it is slow)."""


def _wraps(text: str) -> bool:
    return max(map(len, text.splitlines()), default=0) <= WRAP_LIMIT


class TextsScreen(ModalScreen[None]):
    """The old (A) and the new (B) text of one difference, read-only; Tab moves between them."""

    BINDINGS = [Binding("escape,q", "close", "Close")]

    def __init__(self, texts: OpenTexts) -> None:
        super().__init__()
        self.texts = texts

    def compose(self) -> ComposeResult:
        with Vertical(id="texts-box"):
            yield Label(self.texts.title, id="texts-title")
            with Horizontal(id="texts-sides"):
                for side, text in (("A", self.texts.old), ("B", self.texts.new)):
                    with Vertical(classes="texts-side"):
                        yield Label(f"{side}  ({len(text):,} characters)", classes="texts-label")
                        yield TextArea(text, read_only=True, id=f"texts-{side.lower()}", soft_wrap=_wraps(text))
        yield KeyBar()

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < 100, "-narrow")

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["TextsScreen"]

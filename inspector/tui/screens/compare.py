"""`ctxscope inspect A B`: two recordings' turns aligned (the analysis's LCS alignment), one row per
pair, and what differs in the highlighted pair: each changed line shown where it differs (`W`
wraps them whole), Enter on it opens both texts."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import OptionList, Static

from ctxscope.inspector.analysis.compare import Comparison, compare_analyses
from ctxscope.inspector.tui.loader import load
from ctxscope.inspector.tui.messages import TextsOpened
from ctxscope.inspector.tui.screens.help import COMPARE_KEYS, HelpScreen
from ctxscope.inspector.tui.screens.texts import TextsScreen
from ctxscope.inspector.tui.viewmodel import Line
from ctxscope.inspector.tui.viewmodel.compare import detail_lines, pair_lines, verdict_counts
from ctxscope.inspector.tui.widgets.key_bar import KeyBar
from ctxscope.inspector.tui.widgets.lines_view import LinesView
from ctxscope.proxy.errors import CtxscopeError

NARROW = 100
"""Below this many columns one pane at a time (Tab switches), so a changed line keeps its words."""


class CompareScreen(Screen[None]):
    """Aligned pairs on the left, the highlighted pair's differences on the right."""

    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
        Binding("tab", "switch", "Pane", priority=True),
        Binding("W", "toggle_wrap", "Wrap"),
    ]

    def __init__(self, a: Path, b: Path) -> None:
        super().__init__(id="compare")
        self.a, self.b = a, b
        self.comparison: Comparison | None = None
        self.error: str | None = None
        self.row = 1
        """The pair shown on the right (1-based)."""

    def compose(self) -> ComposeResult:
        yield Static(f"ctxscope inspect  A {self.a.name}  B {self.b.name}  loading...", id="status")
        with Horizontal(id="panes"):
            yield LinesView(id="pairs")
            yield LinesView(id="pair")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#pairs").focus()
        self.load_both()

    @work(thread=True, exclusive=True, group="load")
    def load_both(self) -> None:
        """Read, analyse and align both recordings off the UI thread."""
        try:
            comparison = compare_analyses(load(self.a).analysis, load(self.b).analysis)
        except (CtxscopeError, OSError, ValueError) as err:
            self.app.call_from_thread(self.show_error, str(err))
            return
        self.app.call_from_thread(self.show, comparison)

    def show_error(self, message: str) -> None:
        """Say in the app why the pair cannot be shown."""
        self.error = message
        self.query_one("#pair", LinesView).show_lines([Line.plain(f"error: {message}", "error")])

    def show(self, comparison: Comparison) -> None:
        """Fill the pairs and show the first."""
        self.comparison = comparison
        self.query_one("#status", Static).update(
            f"ctxscope inspect  A {self.a.name} ({len(comparison.a.turns)} turns)  "
            f"B {self.b.name} ({len(comparison.b.turns)} turns)  |  {verdict_counts(comparison)}"
        )
        self.query_one("#pairs", LinesView).show_lines(pair_lines(comparison), keep=False)
        self.show_pair(1)

    def show_pair(self, row: int) -> None:
        """Draw pair `row`'s differences to the pane's width (the notes about the whole pair first)."""
        if self.comparison is None or not self.comparison.turns:
            return
        self.row = row
        pane = self.query_one("#pair", LinesView)
        width = max(20, pane.scrollable_content_region.width - 1)
        notes = [Line.plain(f"note: {n}", "note") for n in self.comparison.notes] if row == 1 else []
        pane.show_lines(notes + detail_lines(self.comparison, row, width=width, wrap=pane.wrap), keep=False)

    def go_to_pair(self, row: int) -> bool:
        """Move to pair `row`; False when there is none."""
        if self.comparison is None or not 1 <= row <= len(self.comparison.turns):
            return False
        self.query_one("#pairs", LinesView).highlighted = row - 1
        self.show_pair(row)
        return True

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "pairs":
            self.show_pair(event.option_index + 1)

    def on_texts_opened(self, event: TextsOpened) -> None:
        self.app.push_screen(TextsScreen(event.texts))

    def on_resize(self, event: Resize) -> None:
        self.set_class(self.size.width < NARROW, "-narrow")
        self.call_after_refresh(self.show_pair, self.row)  # lines are cut to the pane's new width

    def action_switch(self) -> None:
        pairs, pair = self.query_one("#pairs"), self.query_one("#pair")
        target = pair if pairs.has_focus else pairs
        if self.size.width < NARROW:
            pairs.display, pair.display = target is pairs, target is pair
            self.call_after_refresh(self.show_pair, self.row)  # drawn to the width it has now
        target.focus()

    def action_toggle_wrap(self) -> None:
        """Changed lines whole, wrapped by the pane, or cut again where they differ."""
        pane = self.query_one("#pair", LinesView)
        pane.wrap = not pane.wrap
        pane.set_class(pane.wrap, "-wrap")
        self.show_pair(self.row)
        self.notify("changed lines whole, wrapped" if pane.wrap else "changed lines cut where they differ")

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(COMPARE_KEYS, signs=()))


__all__ = ["CompareScreen"]

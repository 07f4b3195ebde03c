"""`ctxscope inspect A B`: two recordings' turns aligned (the analysis's LCS alignment), one row per
pair, and what differs in the highlighted pair."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static

from ctxscope.inspector.analysis.compare import Comparison, compare_analyses
from ctxscope.inspector.tui.loader import load
from ctxscope.inspector.tui.screens.help import COMPARE_KEYS, HelpScreen
from ctxscope.inspector.tui.viewmodel import Line
from ctxscope.inspector.tui.viewmodel.compare import detail_lines, pair_lines, verdict_counts
from ctxscope.inspector.tui.widgets.lines_view import LinesView
from ctxscope.proxy.errors import CtxscopeError


class CompareScreen(Screen[None]):
    """Aligned pairs on the left, the highlighted pair's differences on the right."""

    BINDINGS = [
        Binding("tab", "switch", "Pane", priority=True),
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, a: Path, b: Path) -> None:
        super().__init__(id="compare")
        self.a, self.b = a, b
        self.comparison: Comparison | None = None
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(f"ctxscope inspect  A {self.a.name}  B {self.b.name}  loading...", id="status")
        with Horizontal(id="panes"):
            yield LinesView(id="pairs")
            yield LinesView(id="pair")
        yield Footer()

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
        pairs = comparison.turns
        self.query_one("#status", Static).update(
            f"ctxscope inspect  A {self.a.name} ({len(comparison.a.turns)} turns)  "
            f"B {self.b.name} ({len(comparison.b.turns)} turns)  |  {verdict_counts(comparison)}"
        )
        self.query_one("#pairs", LinesView).show_lines(pair_lines(comparison), keep=False)
        notes = [Line.plain(f"note: {n}", "note") for n in comparison.notes]
        if pairs:
            self.query_one("#pair", LinesView).show_lines(notes + detail_lines(comparison, 1))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.comparison is None or event.option_list.id != "pairs":
            return
        self.query_one("#pair", LinesView).show_lines(detail_lines(self.comparison, event.option_index + 1))

    def on_resize(self, event: Resize) -> None:
        self.set_class(self.size.width < 80, "-narrow")

    def action_switch(self) -> None:
        pairs, pair = self.query_one("#pairs"), self.query_one("#pair")
        target = pair if pairs.has_focus else pairs
        if self.size.width < 80:
            pairs.display, pair.display = target is pairs, target is pair
        target.focus()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(COMPARE_KEYS, signs=()))


__all__ = ["CompareScreen"]

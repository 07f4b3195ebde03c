"""The main screen: timeline | turn view | world state, one recording.

It opens with the first analysis in hand (the loading screen made it: `screens/loading.py`); the
rest of a long recording (`stages`), the live feed (`follow`) and turn rendering (`base`) run in
thread workers (`exclusive`, so holding a key down cancels the stale renders and only the turn under
the cursor is drawn). The panes follow the width (`layout`). The timeline has the focus when the
screen opens, whatever the view asked for.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, Vertical
from textual.events import Resize
from textual.widgets import Static

from ctxscope.inspector.live import LiveFeed
from ctxscope.inspector.tui.loader import Loaded
from ctxscope.inspector.tui.messages import TimelineResized, TurnChosen, TurnHighlighted
from ctxscope.inspector.tui.screens.help import HelpScreen
from ctxscope.inspector.tui.screens.main.follow import Following
from ctxscope.inspector.tui.screens.main.layout import THREE_PANES, Pane, next_pane
from ctxscope.inspector.tui.screens.main.reading import Reading
from ctxscope.inspector.tui.screens.main.search import Finding
from ctxscope.inspector.tui.screens.main.stages import Stages
from ctxscope.inspector.tui.viewmodel import View
from ctxscope.inspector.tui.widgets.key_bar import KeyBar
from ctxscope.inspector.tui.widgets.lines_view import LinesView
from ctxscope.inspector.tui.widgets.timeline import Timeline


class MainScreen(Stages, Following, Finding, Reading):
    """One recording: its timeline, the highlighted turn diffed, and the world state there."""

    # Help and Quit first: the footer drops the last keys when the terminal is narrow.
    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
        Binding("tab", "next_pane", "Pane", priority=True),
        Binding("shift+tab", "previous_pane", "Pane", show=False, priority=True),
        Binding("m", "mark", "Mark"),
        Binding("d", "view('turn')", "Diff"),
        Binding("c", "view('compaction')", "Compaction"),
        Binding("t", "view('tokens')", "Tokens"),
        Binding("x", "view('composition')", "Composition", show=False),
        Binding("dollar_sign", "view('cost')", "Cost"),
        Binding("a", "view('agents')", "Agents"),
        Binding("s", "sort_tokens", "Sort", show=False),
        Binding("w", "focus_pane('world')", "World", show=False),
        Binding("left_square_bracket", "world_jump(False)", "World change", show=False),
        Binding("right_square_bracket", "world_jump(True)", "World change", show=False),
        Binding("slash", "search", "Search"),
        Binding("n", "next_hit(True)", "Next hit", show=False),
        Binding("N", "next_hit(False)", "Previous hit", show=False),
        Binding("f", "filter", "Filter"),
        Binding("g", "go_to", "Go to", show=False),
        Binding("y", "copy_item", "Copy", show=False),
        Binding("e", "export", "Export", show=False),
        Binding("F", "toggle_follow", "Follow", show=False),
        Binding("h", "toggle_side", "Side requests", show=False),
        Binding("W", "toggle_wrap", "Wrap", show=False),
    ]

    def __init__(
        self,
        path: Path,
        first: Loaded,
        *,
        rest: Iterator[Loaded] | None = None,
        live: LiveFeed | None = None,
        turn: int | None = None,
        view: View = "turn",
        pane: Pane = "timeline",
        right: Pane = "turn",
    ) -> None:
        """`first`: the analysis the screen opens with; `rest`: the stages still to come (a long
        recording), or `live`: the live feed of the followed recording the first analysis came from."""
        super().__init__(path, first, turn=turn, view=view, pane=pane, right=right)
        self.rest, self.feed = rest, live
        self.set_reactive(MainScreen.following, live is not None)

    def compose(self) -> ComposeResult:
        yield Static(f"ctxscope inspect  {self.path.name}  loading...", id="status")
        with Horizontal(id="panes"):
            # the timeline with the world state under it from 120 columns (it is only as tall as its
            # rows); the turn view beside them, the whole height
            with Vertical(id="left"):
                yield Timeline(id="timeline")
                yield LinesView(id="world")
            with Container(id="right"):
                yield LinesView(id="turn")
        yield KeyBar()

    def on_mount(self) -> None:
        self.watch_for_redraws()
        self.apply_layout()
        # after the first layout: the rows are drawn to the timeline's width
        self.call_after_refresh(self._open)

    def _open(self) -> None:
        self.show_loaded(self.first)
        self.opened = True
        if self.rest is not None:
            self.analyse_rest(self.rest)
        elif self.feed is not None:
            self.start_following(self.feed)

    def on_turn_highlighted(self, event: TurnHighlighted) -> None:
        # a highlight posted before a redraw moved the cursor again is stale: never act on it
        if event.number == self.query_one(Timeline).highlighted_turn():
            self.select(event.number)

    def on_turn_chosen(self, event: TurnChosen) -> None:
        """Enter on an agent or a request (agents and cost views): the timeline moves to its turn
        (Enter on a timeline row is the turn it is on already)."""
        if event.number != self.current:
            self.go_to_turn(event.number)

    def on_timeline_resized(self, event: TimelineResized) -> None:
        """Draw the rows again at the pane's new width (the cursor stays on its turn)."""
        self.timeline_changed()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that only mean something in one view are off elsewhere (`s` sorts the tokens)."""
        if action == "sort_tokens":
            return self.view == "tokens"
        return True

    # -- layout --------------------------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self.apply_layout()

    def action_focus_pane(self, name: Pane) -> None:
        self.show_pane(name)

    def action_next_pane(self) -> None:
        self.show_pane(next_pane(self.pane, 1))

    def action_previous_pane(self) -> None:
        self.show_pane(next_pane(self.pane, -1))

    def action_view(self, view: View) -> None:
        self.view = view
        self.right = "turn"
        if self.pane != "turn" and self.size.width < THREE_PANES:
            self.pane = "turn"
        self.apply_layout()
        if self.current is not None:
            self.select(self.current)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())


__all__ = ["MainScreen"]

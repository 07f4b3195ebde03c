"""The main screen's state and what is drawn from it: the timeline, the turn under the cursor and
its world state, and the header. Every change of state that the timeline shows (a new analysis, a
mark, a filter, folded side requests, cache flags, a new width) bumps `timeline_revision`, whose
watcher redraws the timeline; the header's state has watchers of its own (`HEADER_STATE`).
"""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from ctxscope.inspector.tui.loader import Loaded
from ctxscope.inspector.tui.open_clock import note
from ctxscope.inspector.tui.screens.main.header import HeaderState, header_text
from ctxscope.inspector.tui.screens.main.layout import PANES, THREE_PANES, Pane, layout_for
from ctxscope.inspector.tui.viewmodel import VIEWS, Inspector, Line, View
from ctxscope.inspector.tui.viewmodel.actions import OpenItem, ShowTurn
from ctxscope.inspector.tui.widgets.lines_view import LinesView
from ctxscope.inspector.tui.widgets.timeline import Timeline
from ctxscope.proxy.errors import CtxscopeError

TURN_LISTS: frozenset[View] = frozenset({"cost", "agents"})
"""The views that list every turn: their cursor follows the timeline's turn."""
HEADER_STATE = ("current", "view", "following", "hit_index", "pending", "new_turns", "note")
"""The screen's vars the header is drawn from (besides the inspector's marks, filter and search)."""


class MainBase(Screen[None]):
    """State, drawing and moving to a turn; the jobs (`stages`, `follow`, `search`, `reading`)
    build on it and `screen.MainScreen` puts them together."""

    # `current` redraws on every assignment (a mark, a filter or a search changes the header while
    # the cursor stays put).
    current: var[int | None] = var(None, always_update=True)
    view: var[View] = var[View]("turn", bindings=True)
    following: var[bool] = var(False)
    hit_index: var[int | None] = var(None, always_update=True)
    """The search hit the cursor was last moved to (an index into the inspector's hits)."""
    pending: var[int] = var(0)
    """Requests of the recording still being analysed (the timeline shows the first turns)."""
    new_turns: var[int] = var(0)
    note: var[str] = var("")
    """A last word for the header (why following stopped)."""
    timeline_revision: var[int] = var(0)
    """Bumped when what the timeline shows changed: its watcher draws the rows again."""

    def __init__(
        self,
        path: Path,
        first: Loaded,
        *,
        turn: int | None = None,
        view: View = "turn",
        pane: Pane = "timeline",
        right: Pane = "turn",
    ) -> None:
        super().__init__(id="main")
        self.path = path
        self.first = first
        self.inspector = Inspector(first.analysis, other_requests=first.other_requests, cache=first.cache)
        self.turn_shown = False
        """A turn's view has been on screen (the benchmark's `first-turn`)."""
        self.opened = False
        """The first analysis is drawn (after the first layout, so rows fit the timeline's width)."""
        self.start_turn = turn
        self.pane: Pane = pane if pane in PANES else "timeline"
        self.right: Pane = right if right in ("turn", "world") else "turn"
        """The pane beside the timeline when only two fit (`turn` or `world`)."""
        # set without the watchers: the header is not composed yet
        self.set_reactive(MainBase.view, view if view in VIEWS else "turn")
        self.set_reactive(MainBase.pending, first.pending)

    def watch_for_redraws(self) -> None:
        """Register the watchers (on mount: the widgets exist from then on)."""
        for name in HEADER_STATE:
            self.watch(self, name, self.draw_header, init=False)
        self.watch(self, "timeline_revision", self._draw_timeline, init=False)

    # -- the timeline ----------------------------------------------------------------------------

    def timeline_changed(self) -> None:
        """What the timeline shows changed: its watcher draws it again."""
        self.timeline_revision += 1

    def _draw_timeline(self) -> None:
        timeline = self.query_one(Timeline)
        timeline.show_lines(self.inspector.timeline(timeline.row_width))
        if self.current is not None and timeline.go_to(self.current):
            # Drawn again with the newer analysis: views of every turn (cost, agents) list the turns
            # that landed, a turn's WebSocket connection counts the connections now known. (The
            # timeline grows in place, so the cursor staying put posts no highlight that did this.)
            self.select(self.current)

    def redraw(self) -> None:
        """Redraw the timeline (marks, filter) and the current turn; a turn the filter hides gives
        its place to the turn now under the cursor."""
        self.timeline_changed()  # its watcher shows the current turn again where the timeline lists it
        timeline = self.query_one(Timeline)
        if self.current is not None and timeline.highlighted_turn() != self.current:
            self.select(timeline.highlighted_turn() or self.current)

    def show_loaded(self, loaded: Loaded) -> None:
        """First draw (and a followed recording's first turns): fill the timeline, show the start turn."""
        if loaded is not self.first:
            self.inspector = Inspector(loaded.analysis, other_requests=loaded.other_requests, cache=loaded.cache)
        self.pending = loaded.pending
        timeline = self.query_one(Timeline)
        timeline.show_lines(self.inspector.timeline(timeline.row_width), keep=False)
        if not loaded.analysis.turns:
            waiting = " yet (following)" if self.following else " to show"
            self.query_one("#turn", LinesView).show_lines(
                [Line.plain(f"{self.path.name} has no model requests{waiting}", "warn")]
            )
            self.draw_header()
            return
        # following: the newest turn, as the cursor follows the turns that land from now on
        start = self.start_turn or (loaded.analysis.turns[-1].turn.number if self.following else 1)
        if not timeline.go_to(start):
            timeline.go_to(1)
        self.select(timeline.highlighted_turn() or 1)
        if not loaded.pending:
            note("complete")
        if not loaded.pending and loaded.cache is None:
            self.find_cache_breaks(self.inspector)

    @work(thread=True, exclusive=True, group="cache")
    def find_cache_breaks(self, inspector: Inspector) -> None:
        """The cache forensics after the first draw (not on the way to the first turn), then the
        timeline's `c` flags."""
        inspector.mark_cache_breaks()
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._cache_breaks_found, inspector)

    def _cache_breaks_found(self, inspector: Inspector) -> None:
        if inspector is self.inspector:
            self.timeline_changed()

    # -- the turn --------------------------------------------------------------------------------

    def select(self, number: int) -> None:
        """Show turn `number` in the right panes (its diff is drawn by a worker)."""
        self.current = number
        world = self.query_one("#world", LinesView)
        world.show_lines(self.inspector.world(number, width=max(30, world.scrollable_content_region.width)))
        self.render_turn(number, self.view)

    @work(thread=True, exclusive=True, group="turn")
    def render_turn(self, number: int, view: View) -> None:
        """Compute the turn view; dropped when the cursor has moved on meanwhile."""
        inspector = self.inspector
        width = max(40, self.query_one("#turn", LinesView).scrollable_content_region.width)
        lines = inspector.turn_lines(number, view, width=width)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._apply_turn, number, view, lines)

    def _apply_turn(self, number: int, view: View, lines: list[Line]) -> None:
        if number == self.current and view == self.view:  # never a stale diff on screen
            pane = self.query_one("#turn", LinesView)
            pane.needle = self.inspector.needle
            pane.show_lines(lines, keep=view not in TURN_LISTS)
            if view in TURN_LISTS:
                self._land_on_turn(number, pane)
            self._land_on_hit(number, pane)
            if not self.turn_shown:
                self.turn_shown = True
                note("first-turn")

    def _land_on_turn(self, number: int, pane: LinesView) -> None:
        """Put the pane's cursor on the line of turn `number` (its request in the cost view, its
        line under its agent in the agents tree: the last line that stands for it)."""
        want = ShowTurn(number)
        found = [index for index, line in enumerate(pane.lines) if line.action == want]
        if found:
            pane.highlighted = found[-1]
            pane.scroll_to_highlight()

    def _land_on_hit(self, number: int, pane: LinesView) -> None:
        """Put the turn pane's cursor on the search hit being visited, when it is this turn's."""
        if self.hit_index is None or self.hit_index >= len(self.inspector.hits):
            return
        hit = self.inspector.hits[self.hit_index]
        if hit.turn != number:
            return
        want = OpenItem(number, hit.position) if hit.position is not None else None
        for index, line in enumerate(pane.lines):
            if (want and line.action == want) or (want is None and "instructions" in line.text):
                pane.highlighted = index
                pane.scroll_to_highlight(top=True)
                return

    def go_to_turn(self, number: int) -> None:
        """Move to turn `number` (clearing a filter that hides it)."""
        try:
            self.inspector.check_turn(number)
        except CtxscopeError as err:
            self.notify(str(err), severity="error")
            return
        timeline = self.query_one(Timeline)
        if not timeline.go_to(number):
            self.inspector.set_filter("")
            self.inspector.side_folded = False
            self.timeline_changed()
            timeline.go_to(number)
        self.select(number)

    # -- the panes ---------------------------------------------------------------------------------

    def apply_layout(self) -> None:
        """Show the panes that fit the width (`layout.layout_for`) and focus the current one."""
        layout = layout_for(self.size.width, self.pane, self.right)
        for name in ("-wide", "-medium", "-narrow"):
            self.set_class(name == layout.css_class, name)
        self.set_class(layout.css_class == "-medium" and "world" in layout.shown, "-world-right")
        for name in PANES:
            self.query_one(f"#{name}").display = name in layout.shown
        self.query_one("#left").display = bool(layout.shown & {"timeline", "world"})
        self.query_one("#right").display = "turn" in layout.shown
        self.query_one(f"#{self.pane}").focus()
        self.draw_header()

    def show_pane(self, name: Pane) -> None:
        """Focus pane `name` (shown first where not every pane fits)."""
        self.pane = name
        if name in ("turn", "world"):
            self.right = name
        self.apply_layout()

    # -- the header ------------------------------------------------------------------------------

    @property
    def shown_view(self) -> str:
        """What the header calls the view: the world pane where it stands for the right side,
        else the main pane's view (turn, compaction, tokens)."""
        return "world" if self.right == "world" and self.size.width < THREE_PANES else self.view

    def draw_header(self) -> None:
        """Draw the header from the screen's state (the watchers of HEADER_STATE call it)."""
        state = HeaderState(
            self.path.name,
            self.current,
            self.shown_view,
            self.hit_index,
            self.pending,
            self.following,
            self.new_turns,
            self.note,
        )
        self.query_one("#status", Static).update(header_text(self.inspector, state))


__all__ = ["HEADER_STATE", "MainBase"]

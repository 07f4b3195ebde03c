"""The main screen: timeline | turn view | world state, one recording.

It opens with the first analysis in hand (the loading screen made it: `screens/loading.py`); the
rest of a long recording and turn rendering run in thread workers (`exclusive`, so holding a key
down cancels the stale renders and only the turn under the cursor is drawn). Panes: three side by
side from 160 columns; three from 120 with the world state under the turn view (so the turn view
keeps about 65 columns); two (timeline and the turn or world pane) from 100; one below 100, where
a timeline row could not hold its figures beside a readable turn view. Tab moves between them.
The timeline has the focus when the screen opens, whatever the view asked for.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.events import Resize
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from ctxscope.inspector.tui.loader import LiveRecording, Loaded
from ctxscope.inspector.tui.messages import (
    FoldToggled,
    ItemOpened,
    RowOpened,
    TimelineResized,
    TurnHighlighted,
)
from ctxscope.inspector.tui.screens.help import HelpScreen
from ctxscope.inspector.tui.screens.item import ItemScreen
from ctxscope.inspector.tui.screens.prompt import PromptScreen
from ctxscope.inspector.tui.viewmodel import VIEWS, Inspector, Line
from ctxscope.inspector.tui.viewmodel.lines import count
from ctxscope.inspector.tui.widgets.lines_view import LinesView
from ctxscope.inspector.tui.widgets.timeline import Timeline
from ctxscope.proxy.errors import ConfigError, CtxscopeError
from ctxscope.proxy.files import write_private

PANES = ("timeline", "turn", "world")
FOLLOW_INTERVAL_S = 0.5
"""How often a followed recording is checked for new lines."""
FOLLOW_GROUP = "follow"
TWO_PANES = 100
HEADER_STATE = ("current", "view", "following", "hit_index", "pending", "new_turns", "note")
"""The screen's vars the header is drawn from (besides the inspector's marks, filter and search)."""
"""From this many columns the timeline and one more pane side by side; one pane below."""


class MainScreen(Screen[None]):
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

    # The state the header shows: each change redraws it through a watcher (`_status`, see
    # HEADER_STATE), so no handler refreshes the header by hand. `current` redraws on every
    # assignment (a mark, a filter or a search changes the header while the cursor stays put).
    current: var[int | None] = var(None, always_update=True)
    view: var[str] = var("turn", bindings=True)
    following: var[bool] = var(False)
    hit_index: var[int | None] = var(None, always_update=True)
    """The search hit the cursor was last moved to (an index into the inspector's hits)."""
    pending: var[int] = var(0)
    """Requests of the recording still being analysed (the timeline shows the first turns)."""
    new_turns: var[int] = var(0)
    note: var[str] = var("")
    """A last word for the header (why following stopped)."""

    def __init__(
        self,
        path: Path,
        first: Loaded,
        *,
        rest: Iterator[Loaded] | None = None,
        live: LiveRecording | None = None,
        turn: int | None = None,
        view: str = "turn",
        pane: str = "timeline",
        right: str = "turn",
        follow_interval: float = FOLLOW_INTERVAL_S,
    ) -> None:
        """`first`: the analysis the screen opens with; `rest`: the stages still to come (a long
        recording), or `live`: the followed recording the first analysis was read from."""
        super().__init__(id="main")
        self.right = right if right in ("turn", "world") else "turn"
        """The pane beside the timeline when only two fit (`turn` or `world`)."""
        self.path = path
        self.first, self.rest, self.live = first, rest, live
        self.follow_interval = follow_interval
        self.inspector = Inspector(first.analysis, other_requests=first.other_requests)
        self.opened = False
        """The first analysis is drawn (after the first layout, so rows fit the timeline's width)."""
        self.start_turn = turn
        self.pane = pane if pane in PANES else "timeline"
        # set without the watchers: the header is not composed yet
        self.set_reactive(MainScreen.view, view if view in VIEWS else "turn")
        self.set_reactive(MainScreen.following, live is not None)
        self.set_reactive(MainScreen.pending, first.pending)

    def compose(self) -> ComposeResult:
        yield Static(f"ctxscope inspect  {self.path.name}  loading...", id="status")
        with Horizontal(id="panes"):
            yield Timeline(id="timeline")
            # turn and world share a column: side by side from 160 columns, stacked from 120, so the
            # turn pane (the one with the diffs) keeps a readable width below 160
            with Container(id="right"):
                yield LinesView(id="turn")
                yield LinesView(id="world")
        yield Footer()

    def on_mount(self) -> None:
        for name in HEADER_STATE:  # each change of the header's state redraws it
            self.watch(self, name, self._status, init=False)
        self._layout()
        # after the first layout: the rows are drawn to the timeline's width
        self.call_after_refresh(self._open)

    def _open(self) -> None:
        self.show_loaded(self.first)
        self.opened = True
        if self.rest is not None:
            self.analyse_rest(self.rest)
        elif self.live is not None:
            self.follow_recording(self.live)

    # -- loading -------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="load")
    def analyse_rest(self, rest: Iterator[Loaded]) -> None:
        """The rest of a long recording, analysed while its first turns are on screen."""
        try:
            for loaded in rest:
                if get_current_worker().is_cancelled:
                    return
                self.app.call_from_thread(self.show_more, loaded)
        except (CtxscopeError, OSError, ValueError) as err:
            self.app.call_from_thread(self.analysis_failed, str(err))

    def analysis_failed(self, message: str) -> None:
        """The rest of the recording could not be analysed: keep the turns shown, say so."""
        self.pending = 0
        self.notify(f"analysis stopped: {message}", severity="error", timeout=10)
        self.note = f"analysis stopped: {message}"

    @work(thread=True, exclusive=True, group=FOLLOW_GROUP)
    def follow_recording(self, live: LiveRecording) -> None:
        """Poll the followed file until the screen goes away (a worker that never completes on
        its own: wait for the other groups when waiting for the app to settle)."""
        worker = get_current_worker()
        while not worker.is_cancelled:
            time.sleep(self.follow_interval)
            try:
                loaded = live.poll()
            except (CtxscopeError, OSError, ValueError) as err:
                if not worker.is_cancelled:
                    self.app.call_from_thread(self.follow_failed, str(err))
                return
            if loaded is not None and not worker.is_cancelled:
                self.app.call_from_thread(self.grow, loaded)

    def follow_failed(self, message: str) -> None:
        """The followed file went away: keep what was read, say so."""
        self.live = None
        self.following = False
        self.notify(f"stopped following: {message}", severity="error", timeout=10)
        self.note = f"not following: {message}"

    def grow(self, loaded: Loaded) -> None:
        """New turns landed: the cursor follows them, or a "+N new turns" notice says so."""
        if not self.inspector.analysis.turns:
            self.show_loaded(loaded)
            if self.following and loaded.analysis.turns:
                self.go_to_turn(loaded.analysis.turns[-1].turn.number)
            return
        added = self.inspector.replace(loaded.analysis, other_requests=loaded.other_requests)
        timeline = self.query_one(Timeline)
        timeline.show_lines(self.inspector.timeline(timeline.row_width))
        if self.current is not None:
            timeline.go_to(self.current)
        if added and self.following:
            self.go_to_turn(loaded.analysis.turns[-1].turn.number)
        elif added:
            self.new_turns += added

    def show_more(self, loaded: Loaded) -> None:
        """The rest of the recording is analysed: the timeline grows under the cursor (which
        moves only to a `--turn` the first stage did not hold)."""
        self.inspector.replace(loaded.analysis, other_requests=loaded.other_requests)
        self.pending = loaded.pending
        timeline = self.query_one(Timeline)
        timeline.show_lines(self.inspector.timeline(timeline.row_width))
        if self.start_turn and self.current != self.start_turn and timeline.go_to(self.start_turn):
            self.select(self.start_turn)
        elif self.current is not None:
            timeline.go_to(self.current)
        if not loaded.pending:
            self.find_cache_breaks(self.inspector)

    def show_loaded(self, loaded: Loaded) -> None:
        """First draw (and a followed recording's first turns): fill the timeline, show the start turn."""
        if loaded is not self.first:
            self.inspector = Inspector(loaded.analysis, other_requests=loaded.other_requests)
        self.pending = loaded.pending
        timeline = self.query_one(Timeline)
        timeline.show_lines(self.inspector.timeline(timeline.row_width), keep=False)
        if not loaded.analysis.turns:
            waiting = " yet (following)" if self.live is not None else " to show"
            self.query_one("#turn", LinesView).show_lines(
                [Line.plain(f"{self.path.name} has no model requests{waiting}", "warn")]
            )
            self._status()
            return
        start = self.start_turn or 1
        if not timeline.go_to(start):
            timeline.go_to(1)
        self.select(timeline.highlighted_turn() or 1)
        if not loaded.pending:
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
            timeline = self.query_one(Timeline)
            timeline.show_lines(inspector.timeline(timeline.row_width))

    # -- showing a turn ------------------------------------------------------------------------

    def on_turn_highlighted(self, event: TurnHighlighted) -> None:
        self.select(event.number)

    def on_timeline_resized(self, event: TimelineResized) -> None:
        """Draw the rows again at the pane's new width (the cursor stays on its turn)."""
        timeline = self.query_one(Timeline)
        timeline.show_lines(self.inspector.timeline(timeline.row_width))
        if self.current is not None:
            timeline.go_to(self.current)

    def select(self, number: int) -> None:
        """Show turn `number` in the right panes (its diff is drawn by a worker)."""
        self.current = number
        world = self.query_one("#world", LinesView)
        world.show_lines(self.inspector.world(number, width=max(30, world.scrollable_content_region.width)))
        self.render_turn(number, self.view)

    @work(thread=True, exclusive=True, group="turn")
    def render_turn(self, number: int, view: str) -> None:
        """Compute the turn view; dropped when the cursor has moved on meanwhile."""
        inspector = self.inspector
        width = max(40, self.query_one("#turn", LinesView).scrollable_content_region.width)
        lines = inspector.turn_lines(number, view, width=width)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._apply_turn, number, view, lines)

    def _apply_turn(self, number: int, view: str, lines: list[Line]) -> None:
        if number == self.current and view == self.view:  # never a stale diff on screen
            pane = self.query_one("#turn", LinesView)
            pane.needle = self.inspector.needle
            pane.show_lines(lines)
            self._land_on_hit(number, pane)

    def _land_on_hit(self, number: int, pane: LinesView) -> None:
        """Put the turn pane's cursor on the search hit being visited, when it is this turn's."""
        if self.hit_index is None or self.hit_index >= len(self.inspector.hits):
            return
        hit = self.inspector.hits[self.hit_index]
        if hit.turn != number:
            return
        want = f"item:{number}:{hit.position}" if hit.position is not None else None
        for index, line in enumerate(pane.lines):
            if (want and line.action == want) or (want is None and "instructions" in line.text):
                pane.highlighted = index
                pane.scroll_to_highlight(top=True)
                return

    def redraw(self) -> None:
        """Redraw the timeline (marks, filter) and the current turn."""
        timeline = self.query_one(Timeline)
        timeline.show_lines(self.inspector.timeline(timeline.row_width))
        if self.current is not None and not timeline.go_to(self.current):
            number = timeline.highlighted_turn()
            if number is not None:
                self.select(number)
                return
        if self.current is not None:
            self.select(self.current)

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
            timeline.show_lines(self.inspector.timeline(timeline.row_width))
            timeline.go_to(number)
        self.select(number)

    def diff_turns(self, a: int, b: int) -> None:
        """Show turn `b` diffed against turn `a` (marks `a`)."""
        try:
            self.inspector.check_turn(a)
        except CtxscopeError as err:
            self.notify(str(err), severity="error")
            return
        self.inspector.marked = a
        self.view = "turn"
        timeline = self.query_one(Timeline)
        timeline.show_lines(self.inspector.timeline(timeline.row_width))
        self.go_to_turn(b)

    def _status(self) -> None:
        """Draw the header from the screen's state (the watchers of HEADER_STATE call it)."""
        parts = [f"ctxscope inspect  {self.path.name}", self.inspector.timeline_title(self.current)]
        parts.append(f"view {self.shown_view}")
        if self.inspector.marked is not None:
            parts.append(f"diff vs marked turn {self.inspector.marked}")
        if self.inspector.hits:
            at = f"{self.hit_index + 1} of " if self.hit_index is not None else ""
            parts.append(f"search {self.inspector.needle!r}: {at}{count(len(self.inspector.hits), 'hit')}")
        if self.pending:
            parts.append(f"analysing {self.pending} more requests")
        if self.following:
            parts.append("following")
        if self.new_turns:
            parts.append(f"+{self.new_turns} new turns (F to follow)")
        if self.note:
            parts.append(self.note)
        self.query_one("#status", Static).update(" | ".join(parts))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that only mean something in one view are off elsewhere (`s` sorts the tokens)."""
        if action == "sort_tokens":
            return self.view == "tokens"
        return True

    @property
    def shown_view(self) -> str:
        """What the header calls the view: the world pane where it stands for the right side,
        else the main pane's view (turn, compaction, tokens)."""
        return "world" if self.right == "world" and self.size.width < 120 else self.view

    # -- layout --------------------------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self._layout()

    def _layout(self) -> None:
        width = self.size.width
        self.set_class(width >= 160, "-xwide")
        self.set_class(width >= 120, "-wide")
        self.set_class(TWO_PANES <= width < 120, "-medium")
        self.set_class(width < TWO_PANES, "-narrow")
        if width >= 120:
            shown = set(PANES)
        elif width >= TWO_PANES:
            shown = {"timeline", self.right}
        else:
            shown = {self.pane}
        for name in PANES:
            self.query_one(f"#{name}").display = name in shown
        self.query_one("#right").display = bool(shown - {"timeline"})
        self.query_one(f"#{self.pane}").focus()
        self._status()

    def action_focus_pane(self, name: str) -> None:
        self.pane = name
        if name in ("turn", "world"):
            self.right = name
        self._layout()

    def action_next_pane(self) -> None:
        self.action_focus_pane(PANES[(PANES.index(self.pane) + 1) % len(PANES)])

    def action_previous_pane(self) -> None:
        self.action_focus_pane(PANES[(PANES.index(self.pane) - 1) % len(PANES)])

    # -- actions -------------------------------------------------------------------------------

    def on_fold_toggled(self, event: FoldToggled) -> None:
        if self.current is not None:
            self.inspector.toggle_fold(event.fold_id)
            self.render_turn(self.current, self.view)

    def on_item_opened(self, event: ItemOpened) -> None:
        detail = self.inspector.item(event.ref)
        if detail is not None:
            full = self.inspector.item(event.ref, full=True) if detail.truncated else None
            self.app.push_screen(ItemScreen(detail, full))

    def on_row_opened(self, event: RowOpened) -> None:
        if event.row == "side":
            self.action_toggle_side()
        else:
            self.notify(
                f"{self.inspector.other_requests} requests are not model turns (ctxscope info lists them)"
            )

    def action_mark(self) -> None:
        if self.current is None:
            return
        self.inspector.toggle_mark(self.current)
        self.redraw()

    def action_view(self, view: str) -> None:
        self.view = view
        self.right = "turn"
        if self.pane != "turn" and self.size.width < 120:
            self.pane = "turn"
        self._layout()
        if self.current is not None:
            self.select(self.current)

    def action_sort_tokens(self) -> None:
        self.inspector.cycle_token_sort()
        self.redraw()

    def action_world_jump(self, forward: bool) -> None:
        if self.current is None:
            return
        target = self.inspector.world_jump(self.current, forward)
        if target is None:
            self.notify("no further world-state change in that direction")
        else:
            self.go_to_turn(target)

    def action_search(self) -> None:
        self.app.push_screen(PromptScreen("search /", value=self.inspector.needle), self.search)

    def search(self, needle: str | None) -> None:
        """Search for `needle` and jump to the first hit at or after the current turn."""
        if needle is None:
            return
        hits = self.inspector.find(needle)
        self.hit_index = None
        if not hits:
            self.notify(f"{needle!r}: not found", severity="warning")
            return
        first = self.inspector.first_hit(self.current or 1)
        self._visit(first)
        self.notify(f"{count(len(hits), 'hit')}; turn {hits[first].turn}: {hits[first].label}")

    def _visit(self, index: int) -> None:
        """Move to hit `index`: its turn in the timeline, its item under the turn pane's cursor."""
        self.hit_index = index
        hit = self.inspector.hits[index]
        if self.size.width < 120 and self.pane == "world":
            self.action_focus_pane("turn")
        self.go_to_turn(hit.turn)

    def action_next_hit(self, forward: bool) -> None:
        if self.current is None:
            return
        if not self.inspector.hits:
            self.notify("no search: press / first")
            return
        index = self.inspector.step_hit(self.hit_index, self.current, forward)
        self._visit(index)
        hit = self.inspector.hits[index]
        self.notify(f"hit {index + 1} of {len(self.inspector.hits)}: turn {hit.turn}: {hit.label}")

    def action_filter(self) -> None:
        self.app.push_screen(
            PromptScreen(
                "filter (empty: all turns)",
                value=self.inspector.filter,
                placeholder="kind:compaction changed:cwd",
            ),
            self.apply_filter,
        )

    def apply_filter(self, expression: str | None) -> None:
        """Show only the turns matching `expression`."""
        if expression is None:
            return
        try:
            self.inspector.set_filter(expression)
        except CtxscopeError as err:
            self.notify(str(err), severity="error")
            return
        if expression and not self.inspector.visible:
            self.notify(f"no turn matches {expression!r}", severity="warning")
        if self.inspector.visible and self.current not in self.inspector.visible:
            self.current = self.inspector.visible[0]  # the detail pane follows the filter to its first turn
        self.redraw()

    def action_go_to(self) -> None:
        self.app.push_screen(PromptScreen("go to turn"), self._go_to_text)

    def _go_to_text(self, text: str | None) -> None:
        if text is not None and text.strip().isdigit():
            self.go_to_turn(int(text))
        elif text:
            self.notify(f"{text!r} is not a turn number", severity="error")

    def action_copy_item(self) -> None:
        action = self.query_one("#turn", LinesView).current_action
        if not action or not action.startswith("item:"):
            self.notify("move the cursor in the turn pane onto an item first")
            return
        detail = self.inspector.item(action, full=True)
        if detail is not None:
            self.app.copy_to_clipboard(detail.json)
            self.notify("item JSON copied to the clipboard")

    def action_export(self) -> None:
        if self.current is None:
            return
        target = Path.cwd() / f"{self.path.stem}-turn{self.current}.md"
        text = self.inspector.markdown(self.current)
        try:  # owner-only, like every file ctxscope writes: a turn holds the conversation
            write_private(target, lambda stream: stream.write(text), inputs=[self.path])
        except ConfigError as err:
            self.notify(str(err), severity="error")
            return
        self.notify(f"turn {self.current} written to {target.name}")

    def action_toggle_follow(self) -> None:
        if self.live is None:
            self.notify("not following a recording: start with ctxscope inspect --follow FILE")
            return
        self.following = not self.following
        if self.following and self.inspector.analysis.turns:
            self.new_turns = 0
            self.go_to_turn(self.inspector.analysis.turns[-1].turn.number)

    def action_toggle_wrap(self) -> None:
        """Long lines of the turn view wrap in place (a prompt, AGENTS.md, a tool output), or are
        cut again with an ellipsis."""
        pane = self.query_one("#turn", LinesView)
        pane.wrap = not pane.wrap
        pane.set_class(pane.wrap, "-wrap")
        pane.show_lines(pane.lines)
        self.notify("long lines wrap" if pane.wrap else "long lines are cut (W wraps them)")

    def action_toggle_side(self) -> None:
        self.inspector.toggle_side()
        self.redraw()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())


__all__ = ["FOLLOW_GROUP", "FOLLOW_INTERVAL_S", "PANES", "TWO_PANES", "MainScreen"]

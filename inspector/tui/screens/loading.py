"""The loading screen: the recording is read and its first turns analysed off the UI thread, then
the main screen takes this screen's place with the analysis in hand (so the main screen never
waits for one). A recording that cannot be shown says why here, in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from ctxscope.inspector.live import LiveFeed
from ctxscope.inspector.tui.loader import FIRST_STAGE, Loaded, live_loaded, load_in_stages
from ctxscope.inspector.tui.widgets.key_bar import KeyBar
from ctxscope.proxy.errors import CtxscopeError, RecordingError

Opened = Callable[[Loaded, "Iterator[Loaded] | None", "LiveFeed | None"], Screen[None]]
"""Builds the main screen from the first analysis, the stages still to come and the followed file."""


class LoadingScreen(Screen[None]):
    """`loading...` until the first analysis exists, then the screen `opened` builds."""

    BINDINGS = [Binding("q", "app.quit", "Quit")]

    def __init__(self, path: Path, opened: Opened, *, follow: bool = False) -> None:
        super().__init__(id="loading")
        self.path, self.opened, self.follow = path, opened, follow
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(f"ctxscope inspect  {self.path.name}  loading...", id="status")
        yield Static("", id="loading-message")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load_first()

    @work(thread=True, exclusive=True, group="load")
    def load_first(self) -> None:
        """Read the recording and analyse its first stage (all of it when it is short)."""
        live: LiveFeed | None = None
        rest: Iterator[Loaded] | None = None
        try:
            if self.follow:
                live = LiveFeed(self.path)
                # the first read always answers, with no turns if none yet; a long file's first
                # part only (the feed reads the rest before it waits for new lines)
                update = live.read(FIRST_STAGE, cache=False, count=False)
                if update is None:
                    raise RecordingError(f"{self.path.name}: nothing could be read")
                first = live_loaded(update)
            else:
                rest = load_in_stages(self.path)
                first = next(rest)
        except (CtxscopeError, OSError, ValueError) as err:
            self.app.call_from_thread(self.show_error, str(err))
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._open, first, rest, live)

    def _open(self, first: Loaded, rest: Iterator[Loaded] | None, live: LiveFeed | None) -> None:
        self.app.switch_screen(self.opened(first, rest, live))

    def show_error(self, message: str) -> None:
        """A recording that cannot be shown: say why in the app (no traceback)."""
        self.error = message
        self.query_one("#status", Static).update(f"ctxscope inspect  {self.path.name}  error")
        self.query_one("#loading-message", Static).update(f"error: {message}")


__all__ = ["LoadingScreen", "Opened"]

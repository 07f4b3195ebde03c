"""`ctxscope inspect`: the Textual app. It only routes: screens render what the view model returns,
and the view model asks the analysis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from textual.app import App

from ctxscope.inspector.live import LiveFeed
from ctxscope.inspector.tui.commands import InspectorCommands
from ctxscope.inspector.tui.loader import Loaded
from ctxscope.inspector.tui.open_clock import note
from ctxscope.inspector.tui.screens.compare import CompareScreen
from ctxscope.inspector.tui.screens.loading import LoadingScreen
from ctxscope.inspector.tui.screens.main import MainScreen, Pane
from ctxscope.inspector.tui.viewmodel import View


class InspectorApp(App[None]):
    """Walk one recording turn by turn, or compare two aligned turn by turn (`other`)."""

    CSS_PATH = "styles/inspector.tcss"
    TITLE = "ctxscope inspect"
    COMMANDS = App.COMMANDS | {InspectorCommands}

    def __init__(
        self,
        path: Path,
        other: Path | None = None,
        *,
        turn: int | None = None,
        view: View = "turn",
        pane: Pane = "timeline",
        right: Pane = "turn",
        follow: bool = False,
    ) -> None:
        super().__init__()
        self.path, self.other = path, other
        self.turn, self.view, self.pane, self.right, self.follow = turn, view, pane, right, follow

    def on_mount(self) -> None:
        note("started")
        if self.other is not None:
            self.push_screen(CompareScreen(self.path, self.other))
            return
        # the loading screen makes the first analysis; the main screen opens with it
        self.push_screen(LoadingScreen(self.path, self._main_screen, follow=self.follow))

    def _main_screen(self, first: Loaded, rest: Iterator[Loaded] | None, live: LiveFeed | None) -> MainScreen:
        return MainScreen(
            self.path,
            first,
            rest=rest,
            live=live,
            turn=self.turn,
            view=self.view,
            pane=self.pane,
            right=self.right,
        )


__all__ = ["InspectorApp"]

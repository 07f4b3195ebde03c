"""The rest of a long recording: its first turns are on screen while a worker analyses the others
(`loader.load_in_stages`); the timeline then grows under the cursor."""

from __future__ import annotations

from collections.abc import Iterator

from textual import work
from textual.worker import get_current_worker

from ctxscope.inspector.tui.loader import Loaded
from ctxscope.inspector.tui.open_clock import note
from ctxscope.inspector.tui.screens.main.base import MainBase
from ctxscope.inspector.tui.widgets.timeline import Timeline
from ctxscope.proxy.errors import CtxscopeError


class Stages(MainBase):
    """Takes the later stages of the analysis."""

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

    def show_more(self, loaded: Loaded) -> None:
        """The rest of the recording is analysed: the timeline grows under the cursor (which
        moves only to a `--turn` the first stage did not hold)."""
        self.inspector.replace(loaded.analysis, other_requests=loaded.other_requests)
        self.pending = loaded.pending
        self.timeline_changed()
        timeline = self.query_one(Timeline)
        if self.start_turn and self.current != self.start_turn and timeline.go_to(self.start_turn):
            self.select(self.start_turn)
        if not loaded.pending:
            note("complete")
            self.find_cache_breaks(self.inspector)


__all__ = ["Stages"]

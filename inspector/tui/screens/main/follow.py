"""Follow mode: the screen subscribes to the live feed (`ctxscope.inspector.live`), which watches
the file and analyses each new turn with its cache forensics; the screen only draws what arrives.
The feed runs in a thread worker and posts to the screen (`LiveArrived`); nothing here sleeps or
reads the file."""

from __future__ import annotations

import threading

from textual import work

from ctxscope.inspector.live import FeedStopped, LiveEvent, LiveFeed
from ctxscope.inspector.tui.loader import FIRST_STAGE, live_loaded
from ctxscope.inspector.tui.messages import LiveArrived
from ctxscope.inspector.tui.screens.main.base import MainBase

FOLLOW_GROUP = "follow"
"""The feed's worker group: it runs until the screen goes away (wait for the others to settle)."""


class Following(MainBase):
    """Draws the live feed's turns as they land: the cursor follows them, or a "+N new turns"
    notice says so (`F` toggles)."""

    live: LiveFeed | None = None
    _stop: threading.Event | None = None

    def start_following(self, feed: LiveFeed) -> None:
        """Subscribe to `feed` and run it until the screen is unmounted."""
        self.live = feed
        self._stop = threading.Event()
        feed.subscribe(self._from_feed)
        self.run_feed(feed, self._stop)

    def _from_feed(self, event: LiveEvent) -> None:
        """Called in the feed's thread: hand the event to the screen (`post_message` is thread-safe)."""
        self.post_message(LiveArrived(event))

    @work(thread=True, exclusive=True, group=FOLLOW_GROUP)
    def run_feed(self, feed: LiveFeed, stop: threading.Event) -> None:
        feed.run(stop, batch=FIRST_STAGE)  # the rest of a long file first, in parts

    def on_unmount(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def on_live_arrived(self, message: LiveArrived) -> None:
        event = message.event
        if isinstance(event, FeedStopped):
            self.follow_failed(event.reason)
            return
        loaded = live_loaded(event)
        self.pending = loaded.pending
        if not self.inspector.analysis.turns:
            self.show_loaded(loaded)
            if self.following and loaded.analysis.turns:
                self.go_to_turn(loaded.analysis.turns[-1].turn.number)
            return
        added = self.inspector.replace(loaded.analysis, other_requests=loaded.other_requests, cache=loaded.cache)
        self.timeline_changed()
        if added and self.following:
            self.go_to_turn(loaded.analysis.turns[-1].turn.number)
        elif added:
            self.new_turns += added

    def follow_failed(self, message: str) -> None:
        """The followed file went away: keep what was read, say so."""
        self.live = None
        self.following = False
        self.notify(f"stopped following: {message}", severity="error", timeout=10)
        self.note = f"not following: {message}"

    def action_toggle_follow(self) -> None:
        if self.live is None:
            self.notify("not following a recording: start with ctxscope inspect --follow FILE")
            return
        self.following = not self.following
        if self.following and self.inspector.analysis.turns:
            self.new_turns = 0
            self.go_to_turn(self.inspector.analysis.turns[-1].turn.number)


__all__ = ["FOLLOW_GROUP", "Following"]

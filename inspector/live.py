"""The live feed: a recording still being written, analysed as it grows. Subscribers get each new
turn once it is analysed, with every figure the batch view has (the cache forensics behind the
timeline's `c` flag included), so a live view never polls the file or computes a flag of its own.

The feed watches the file: with `watchfiles` (inotify on Linux) where it is installed, else a poll
inside the feed. `RecordingFollower` (`ctxscope.proxy.store.follow`) reads only the appended bytes
and `IncrementalAnalysis` analyses only the new exchanges (the cache forensics included: each turn's
is made as it is analysed), so an update costs what was appended plus regrouping the turns into
threads (18-30 ms for one appended turn of a 1,000-turn recording, in-process).

A file that is already long is read the same way, in parts (`read(limit)`, then `catch_up`): the
first turns are shown from the file's first lines while the rest is read and analysed behind them,
so `ctxscope inspect` opens a recording of any size at once (`tui/loader.load_in_stages`).

    feed = LiveFeed(path)
    first = feed.read()                  # what the file holds now (`read(20)`: its first 20 requests)
    feed.subscribe(print)                # LiveUpdate for each batch of new turns, FeedStopped at the end
    feed.run(stop)                       # blocks until `stop` is set or the file goes away
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ctxscope.inspector.analysis.analyse import Analysis, IncrementalAnalysis, TurnAnalysis
from ctxscope.inspector.analysis.cache import CacheTurn, cache_report
from ctxscope.proxy.errors import CtxscopeError, RecordingError
from ctxscope.proxy.store.follow import RecordingFollower
from ctxscope.proxy.store.offsets import exchange_offsets

POLL_INTERVAL_S = 0.25
"""How often the file is looked at where no file watcher is installed (the poll lives here only)."""
WATCH_TIMEOUT_MS = 1_000
"""The longest the watcher waits before the feed looks at the file anyway (a missed event, a file
deleted in a way the watcher does not report)."""
PART_BYTES = 8 << 20
"""The most of a long file `catch_up` reads into one part (about 80 turns of 100 KB bodies: seconds
of analysis, which is what quitting the app mid-way waits for)."""
DEBOUNCE_MS = 30
"""Events this close together are one change (a writer's exchange is one write, its blobs just before)."""


@dataclass(frozen=True)
class LiveUpdate:
    """The recording so far, and what this read added to it."""

    analysis: Analysis
    """Every turn read so far (`IncrementalAnalysis`' result: equal to a batch analysis of the file)."""
    new: tuple[TurnAnalysis, ...]
    """The turns this read added, in order."""
    cache: Mapping[int, CacheTurn] = field(default_factory=dict)
    """`cache_report` of the analysis by turn number: where each turn's cached prefix broke."""
    other_requests: int = 0
    """Requests read that are not model turns."""
    pending: int = 0
    """Requests the file holds beyond this update (a large file read in parts); 0 when caught up."""

    @property
    def cache_breaks(self) -> frozenset[int]:
        """The turns whose cached prefix broke (the timeline's `c` flag)."""
        return frozenset(number for number, entry in self.cache.items() if entry.brk is not None)


@dataclass(frozen=True)
class FeedStopped:
    """The feed ended: the file went away or could not be read; what was read stays valid."""

    reason: str


LiveEvent = LiveUpdate | FeedStopped
Subscriber = Callable[[LiveEvent], None]


def _watcher() -> Any:
    """`watchfiles.watch`, or None where it is not installed (the feed then polls)."""
    try:
        from watchfiles import watch
    except ImportError:
        return None
    return watch


class LiveFeed:
    """One growing recording, analysed incrementally; subscribers are called from `run`'s thread."""

    def __init__(self, path: Path, *, poll: bool = False, poll_interval: float = POLL_INTERVAL_S) -> None:
        """`poll`: look at the file every `poll_interval` seconds even where a watcher is installed."""
        self.path = path
        # the analysis is the only reader of these bodies: inputs share their storage (`SharedInput`)
        self.follower = RecordingFollower(path, shared_inputs=True)
        self.analysis = IncrementalAnalysis(source=path.name)
        self.poll_interval = poll_interval
        self.watch = None if poll else _watcher()
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()
        self._read_once = False
        self.last: LiveUpdate | None = None
        self._ahead: list[int] = []
        """Where the exchange lines not read yet start (`pending` counts them)."""

    # -- subscribers ---------------------------------------------------------------------------

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call `subscriber` with each `LiveUpdate` that adds turns, and `FeedStopped` at the end;
        returns the function that unsubscribes it."""
        with self._lock:
            self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with self._lock:
                if subscriber in self._subscribers:
                    self._subscribers.remove(subscriber)

        return unsubscribe

    def _publish(self, event: LiveEvent) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            subscriber(event)

    # -- reading -------------------------------------------------------------------------------

    def read(
        self, limit: int | None = None, *, cache: bool = True, count: bool = True, max_bytes: int | None = None
    ) -> LiveUpdate | None:
        """Read what was appended and analyse it: the update, or None when nothing was added since
        the last read (the first read always answers, with no turns when the file has none yet).
        `limit`: read at most that many exchanges (`backlog` says what is left), so a large file is
        shown from its first part on, and `max_bytes`: stop once that many bytes are read;
        `cache=False` leaves the cache forensics (a pass over every turn) to a later read;
        `count=False` estimates the requests still to come from the bytes left instead of counting
        them (a pass over the whole file: about 3 s on 1 GB, too long before a first screen).
        `RecordingError` when the file went away, shrank or is not a recording."""
        exchanges = self.follower.poll(limit, max_bytes)
        if not exchanges and self._read_once:
            return None
        self._read_once = True
        before = len(self.last.analysis.turns) if self.last is not None else 0
        self.analysis.header = self.follower.header
        analysis = self.analysis.extend(exchanges, warnings=self.follower.warnings)
        report = {entry.turn: entry for entry in cache_report(analysis)} if cache else {}
        update = LiveUpdate(
            analysis,
            tuple(analysis.turns[before:]),
            report,
            analysis.other_requests,
            pending=self.pending() if count else self._estimate(),
        )
        self.last = update
        return update

    @property
    def backlog(self) -> int:
        """Bytes the file held at the last read that are not analysed yet (after a `limit`ed read)."""
        return self.follower.unread

    def pending(self) -> int:
        """Requests of the file not read yet, counted without decoding them (`exchange_offsets`,
        one pass over the file, repeated only when the file grew past it); 0 once caught up."""
        if self.follower.unread == 0:
            return 0
        offset = self.follower.offset
        if not self._ahead or self._ahead[-1] < offset:
            self._ahead = exchange_offsets(self.path, offset)
        return len(self._ahead) - bisect_left(self._ahead, offset)

    def _estimate(self) -> int:
        """The requests still to come if the rest of the file is like what was read (at least 1
        while bytes are left)."""
        unread, offset = self.follower.unread, self.follower.offset
        if not unread:
            return 0
        return max(1, round(unread * len(self.analysis.exchanges) / max(offset, 1)))

    def catch_up(
        self, batch: int, stop: threading.Event | None = None, *, cache: bool = True
    ) -> Iterator[LiveUpdate]:
        """Read the rest of what the file holds in growing parts (`batch` exchanges, then as many
        as were read so far: each analysis of everything costs about as much as all the parts
        before it; at most `PART_BYTES` of the file each, so large bodies come in parts a viewer
        that quits waits for), yielding each update; the last one (`pending` 0) has the cache
        forensics unless `cache` is False."""
        while self.follower.unread and not (stop is not None and stop.is_set()):
            size = max(batch, len(self.analysis.exchanges))
            update = self.read(size, cache=False, max_bytes=PART_BYTES)
            if update is None:
                return
            if update.pending:
                yield update
        if self.last is not None and not (stop is not None and stop.is_set()):
            report = {entry.turn: entry for entry in cache_report(self.last.analysis)} if cache else {}
            self.last = replace(self.last, cache=report, pending=0)
            yield self.last

    def run(self, stop: threading.Event, *, batch: int | None = None) -> None:
        """Wait for the file to change and publish each update that adds turns, until `stop` is set
        or the file cannot be read any more (then `FeedStopped`). Blocks: run it in a thread.
        `batch`: what an earlier `limit`ed read left is read first, in parts of at least that many
        exchanges, each published."""
        try:
            if batch is not None and self.backlog:
                for part in self.catch_up(batch, stop):
                    self._publish(part)
            for _ in self._changes(stop):
                if stop.is_set():
                    return
                update = self.read()
                if update is not None and update.new:
                    self._publish(update)
        except (CtxscopeError, OSError, ValueError) as err:
            if not stop.is_set():
                self._publish(FeedStopped(str(err)))

    def _changes(self, stop: threading.Event) -> Any:
        """Yields once per change of the file (or per timeout, so a missed event is caught)."""
        if self.watch is None:
            while not stop.wait(self.poll_interval):
                yield None
            return
        target = self.path.resolve()
        if not target.parent.is_dir():
            raise RecordingError(f"{self.path}: its folder went away")
        # the folder, not the file: a watch on the file itself is lost when the file is replaced
        yield from self.watch(
            target.parent,
            watch_filter=lambda _change, changed: Path(changed) == target,
            debounce=DEBOUNCE_MS,
            step=10,
            stop_event=stop,
            rust_timeout=WATCH_TIMEOUT_MS,
            yield_on_timeout=True,
            recursive=False,
            raise_interrupt=False,
        )


__all__ = ["PART_BYTES", "FeedStopped", "LiveEvent", "LiveFeed", "LiveUpdate", "Subscriber"]

"""The live feed (`ctxscope.inspector.live`): a recording appended to while a subscriber listens gets
each new turn once, analysed with the batch view's figures (the cache forensics behind `c`), through
the file watcher and through the poll."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.cache import cache_report
from ctxscope.inspector.live import FeedStopped, LiveEvent, LiveFeed, LiveUpdate
from tests.inspector.tui.conftest import recording
from tests.inspector.tui.test_follow import split_after_turn

WAIT_S = 30.0
"""Bound on waiting for an update (a loaded machine); not a timed assertion."""


@pytest.mark.parametrize("poll", [False, True], ids=["watcher", "poll"])
def test_subscribers_get_each_new_turn_once_with_its_cache_flag(tmp_path: Path, poll: bool) -> None:
    # the small Codex capture: its turn 2 breaks a 300k-token cached prefix (the `world` fixture's
    # changes are under the cache's minimum, cost no cached token, and are no break)
    source = recording("codex")
    head, rest = split_after_turn(source, 1)
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    feed = LiveFeed(live, poll=poll, poll_interval=0.05)
    first = feed.read()
    assert first is not None and [t.turn.number for t in first.new] == [1]
    events: list[LiveEvent] = []
    arrived = threading.Event()

    def subscriber(event: LiveEvent) -> None:
        events.append(event)
        if isinstance(event, LiveUpdate) and len(event.analysis.turns) == 6:
            arrived.set()

    feed.subscribe(subscriber)
    stop = threading.Event()
    runner = threading.Thread(target=feed.run, args=(stop,))
    runner.start()
    try:
        with live.open("ab") as stream:
            for line in rest:  # the writer's lines one by one, as a capture appends them
                stream.write(line)
                stream.flush()
        assert arrived.wait(WAIT_S), f"no update with all turns; got {events}"
    finally:
        stop.set()
        runner.join(WAIT_S)
    assert not runner.is_alive()
    updates = [e for e in events if isinstance(e, LiveUpdate)]
    assert [t.turn.number for u in updates for t in u.new] == [2, 3, 4, 5, 6]  # each new turn once, in order
    batch = analyse_recording(source)
    expected = {e.turn for e in cache_report(batch) if e.brk is not None}
    assert updates[-1].cache_breaks == expected and 2 in expected  # the batch view's c flags
    assert [t.turn.number for t in updates[-1].analysis.turns] == [t.turn.number for t in batch.turns]


def test_a_deleted_file_ends_the_feed_with_a_reason(tmp_path: Path) -> None:
    head, _ = split_after_turn(recording("world"), 1)
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    feed = LiveFeed(live)
    feed.read()
    events: list[LiveEvent] = []
    feed.subscribe(events.append)
    stop = threading.Event()
    runner = threading.Thread(target=feed.run, args=(stop,))
    runner.start()
    live.unlink()
    runner.join(WAIT_S)
    stop.set()
    assert not runner.is_alive()
    assert [type(e) for e in events] == [FeedStopped] and "deleted while following" in events[0].reason  # type: ignore[union-attr]

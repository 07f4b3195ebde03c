"""Opening a large recording at once (issue 36): the first turns come from the file's first lines,
the rest is analysed behind them in parts, and what the screen ends with is what the ordinary load
gives, turn document for turn document. Memory and time are the benchmark's (`bench_open.py`)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from ctxscope.inspector.analysis import analyse_exchanges
from ctxscope.inspector.analysis.cache import cache_report
from ctxscope.inspector.live import LiveEvent, LiveFeed, LiveUpdate
from ctxscope.inspector.tui.loader import load, load_in_stages
from ctxscope.inspector.tui.viewmodel import Inspector
from ctxscope.inspector.tui.widgets import Timeline
from ctxscope.proxy.model import Exchange
from ctxscope.proxy.store import RecordingWriter, read_recording
from ctxscope.proxy.store.offsets import exchange_offsets
from tests.inspector.tui.conftest import FIXTURES, running
from tests.inspector.tui.test_real_terminal import TMUX, _timeline_row, terminal

pytestmark = pytest.mark.anyio
THREAD_TURNS = 7


def _body(thread: int, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "model": "gpt-5-codex",
        "instructions": "You are a coding agent. " * 20,
        "input": list(items),
        "tools": [{"type": "function", "name": "shell", "parameters": {"type": "object"}}],
        "stream": True,
        "prompt_cache_key": f"thread-{thread}",
    }


def write_large(path: Path, turns: int, kb: int) -> Path:
    """`turns` turns in threads of `THREAD_TURNS`, each adding a `kb` KB tool output, with the
    real writer; every fifth pair of exchanges finishes out of request order (lines are written in
    completion order), and a models list opens the file (a request that is no turn)."""
    with RecordingWriter(path, meta={"mode": "test"}) as writer:
        writer.write(
            Exchange(
                id=writer.next_id(), started_at=1_700_000_000.0, method="GET",
                url="http://127.0.0.1:9/v1/models", endpoint="models", status=200,
            )
        )  # fmt: skip
        held: Exchange | None = None
        items: list[dict[str, Any]] = []
        for n in range(turns):
            thread, step = divmod(n, THREAD_TURNS)
            if step == 0:
                items = []
            items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"do {n}"}]})
            exchange = Exchange(
                id=writer.next_id(),
                started_at=1_700_000_001.0 + n,
                method="POST",
                url="http://127.0.0.1:9/v1/responses",
                endpoint="responses",
                status=200,
                request_body=_body(thread, items),
                response={"id": f"resp_{n}", "status": "completed", "output": [], "usage": {"input_tokens": 10 + n}},
            )
            items += [
                {"type": "function_call", "call_id": f"c{n}", "name": "shell", "arguments": "{}"},
                {"type": "function_call_output", "call_id": f"c{n}", "output": f"{n} ok\n" * (kb * 200)},
            ]
            if n % 5 == 3:
                held = exchange  # finishes after the next one
                continue
            writer.write(exchange)
            if held is not None:
                writer.write(held)
                held = None
        if held is not None:
            writer.write(held)
    return path


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_large(tmp_path_factory.mktemp("large") / "large.jsonl", turns=60, kb=4)


def test_the_staged_open_ends_with_the_ordinary_loads_turn_documents(large: Path) -> None:
    stages = list(load_in_stages(large, first=5))
    ordinary = load(large)
    assert len(stages) > 3, "a long recording is analysed in several parts"
    assert [s.pending for s in stages][-1] == 0 and all(s.pending for s in stages[:-1])
    # each part adds what the file holds next, and says how many requests are still to come
    turns = [len(s.analysis.turns) for s in stages]
    assert turns == sorted(turns) and turns[-1] == 60 and turns[0] >= 4
    # the first part only estimates what is left (counting it is a pass over the file); then counted
    assert stages[0].pending > 0 and stages[1].pending == len(exchange_offsets(large)) - 10
    assert stages[-1].analysis == ordinary.analysis, "the staged analysis differs from the ordinary load"
    assert stages[-1].other_requests == ordinary.other_requests == 1


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.jsonl")))
def test_every_fixture_opened_a_request_at_a_time_equals_its_ordinary_load(name: str) -> None:
    path = FIXTURES / f"{name}.jsonl"
    *_, last = load_in_stages(path, first=1)
    assert last.analysis == load(path).analysis and last.pending == 0


def test_the_first_part_is_decoded_from_the_first_lines_only(large: Path, tmp_path: Path) -> None:
    # the file's tail is not JSON: reading it would say so; the first part never gets there
    damaged = tmp_path / "tail.jsonl"
    data = large.read_bytes()
    damaged.write_bytes(data + b"not json at all\n")
    feed = LiveFeed(damaged)
    first = feed.read(5, cache=False)
    assert first is not None and len(feed.analysis.exchanges) == 5 and first.analysis.warnings == []
    assert feed.backlog > len(data) // 2 and first.pending == len(exchange_offsets(damaged)) - 5
    *_, last = feed.catch_up(5)
    assert last.pending == 0 and any("line" in w and "not JSON" in w for w in last.analysis.warnings)
    assert last.analysis.turns == analyse_exchanges(read_recording(damaged).exchanges).turns


async def test_the_screen_after_the_whole_load_is_the_screen_of_the_ordinary_load(
    large: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ctxscope.inspector.tui.loader as loader

    monkeypatch.setattr(loader, "FIRST_STAGE", 4)
    headers: list[str] = []
    async with running(large) as (_, screen, pilot):
        deadline = time.monotonic() + 60
        while screen.pending and time.monotonic() < deadline:  # bounded: a loaded machine is slow
            headers.append(str(screen.query_one("#status", Static).content))
            await pilot.pause(0.05)
        await pilot.pause()
        assert screen.pending == 0
        timeline = screen.query_one(Timeline)
        ordinary = Inspector(load(large).analysis, other_requests=1)
        ordinary.mark_cache_breaks()
        await pilot.pause(0.5)
        assert [line.text for line in timeline.lines] == [
            line.text for line in ordinary.timeline(timeline.row_width)
        ]
        width = 80
        for number in (1, 30, 60):
            assert screen.inspector.turn_lines(number, "turn", width=width) == ordinary.turn_lines(
                number, "turn", width=width
            )
        assert "analysing" not in str(screen.query_one("#status", Static).content)


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed: no real terminal to drive")
def test_the_real_command_shows_a_large_recording_from_its_first_part_then_all_of_it(tmp_path: Path) -> None:
    path = write_large(tmp_path / "big.jsonl", turns=300, kb=12)  # ≈ 8 MB, 301 requests
    with terminal(tmp_path, (120, 40), str(path)) as term:
        first = term.wait_for(lambda s: "turn 1 of" in s and "Turn 1 " in s, "turn 1 drawn")
        assert _timeline_row(first, 1), first
        term.wait_for(lambda s: "turn 1 of 300 " in s and "analysing" not in s, "every turn analysed")
        term.keys("g")
        term.wait_for(lambda s: "Go to turn" in s or "go to" in s.lower(), "the go-to prompt")
        term.keys("300", "Enter")
        term.wait_for(lambda s: "turn 300 of 300" in s and "Turn 300 " in s, "the last turn, gone to")


def test_following_a_large_recording_reads_its_backlog_in_parts_before_waiting(large: Path) -> None:
    feed = LiveFeed(large, poll=True, poll_interval=0.05)
    first = feed.read(5, cache=False, count=False)
    assert first is not None and first.pending > 0
    updates: list[LiveUpdate] = []
    caught_up = threading.Event()

    def subscriber(event: LiveEvent) -> None:
        assert isinstance(event, LiveUpdate), event
        updates.append(event)
        if event.pending == 0:
            caught_up.set()

    feed.subscribe(subscriber)
    stop = threading.Event()
    runner = threading.Thread(target=feed.run, args=(stop,), kwargs={"batch": 5})
    runner.start()
    try:
        assert caught_up.wait(60), f"the backlog was not read; got {[u.pending for u in updates]}"
    finally:
        stop.set()
        runner.join(60)
    assert not runner.is_alive() and len(updates) > 2
    assert [u.pending for u in updates] == sorted((u.pending for u in updates), reverse=True)
    last = updates[-1]
    ordinary = load(large).analysis
    assert last.analysis == ordinary and last.cache_breaks == {
        e.turn for e in cache_report(ordinary) if e.brk is not None
    }

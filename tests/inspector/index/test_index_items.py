"""The `items` rows in linear time (issue 36) are the rows the quadratic loop gave, row for row."""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.index.rows import _item_rows, _items

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDINGS = sorted(FIXTURES.rglob("*.jsonl"))  # the recordings test_index indexes
DAY = date(2026, 1, 2)


def reference_items(analysis: Any, rec: str, day: date, with_text: bool) -> list[tuple[Any, ...]]:
    """The implementation before issue 36, kept as the reference: it copied each turn's kept prefix
    and rewrote last_turn in every kept row (quadratic in a growing session)."""
    open_by_turn: dict[int, list[list[Any]]] = {}
    rows: list[list[Any]] = []
    for result in analysis.turns:
        turn, change = result.turn, result.change
        base = open_by_turn.get(change.previous) if change.previous is not None else None
        kept = base[: change.kept] if base is not None else []
        here: list[list[Any]] = []
        for entry in kept:
            if entry[0][2] == turn.thread:
                for row in entry:
                    row[4] = turn.number
            here.append(entry)
        for item in turn.items[len(kept) :]:
            head = (rec, day, turn.thread, turn.number, turn.number)
            entry = [list(r) for r in _item_rows(item, head, with_text)]
            rows.extend(entry)
            here.append(entry)
        open_by_turn[turn.number] = here
    return [tuple(r) for r in rows]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_gives_the_reference_rows(path: Path) -> None:
    analysis = analyse_recording(path)
    for with_text in (False, True):
        assert _items(analysis, "rec", DAY, with_text) == reference_items(analysis, "rec", DAY, with_text)


def _item(n: int, parts: int) -> SimpleNamespace:
    """An item as `_item_rows` reads it: with `parts` fragments (one row each), or none (one row)."""
    fragments = tuple(
        SimpleNamespace(index=i, kind="text", is_fragment=True, label=f"p{i}", tokens=i, text=f"{n}.{i}")
        for i in range(parts)
    )
    return SimpleNamespace(
        position=n,
        type="message",
        role="user",
        kind="user_message",
        label=f"i{n}",
        tokens=n,
        text=f"item {n}",
        key=f"k{n}",
        parts=fragments,
    )


def _turn(number: int, thread: str, items: list[Any], previous: int | None, kept: int) -> SimpleNamespace:
    turn = SimpleNamespace(number=number, thread=thread, items=items)
    return SimpleNamespace(turn=turn, change=SimpleNamespace(previous=previous, kept=kept))


def _generated(seed: int, turns: int) -> SimpleNamespace:
    """A session of appends, with forks into new threads, siblings branching from one base (retries,
    several forks of one turn), cuts to a shorter prefix (compaction, rewrites), turns that keep more
    than their base had or hold fewer items than they keep, bases never seen, and a thread returning
    to a base of another thread."""
    rng = random.Random(seed)
    contexts: dict[int, list[Any]] = {}
    threads: dict[int, str] = {}
    out = []
    made = 0
    for number in range(1, turns + 1):
        roll = rng.random()
        previous = rng.choice(list(contexts)) if contexts and roll < 0.3 else max(contexts, default=None)
        if rng.random() < 0.03:
            previous = None if rng.random() < 0.5 else number + 7  # a new start, or a base not seen
        base = contexts.get(previous, []) if previous is not None else []
        thread = threads.get(previous, "main") if previous is not None else "main"
        if rng.random() < 0.15:
            thread = rng.choice(["main", *(f"fork{i}" for i in range(4))])
        cut = rng.random()
        if cut < 0.6:
            kept = len(base)
        elif cut < 0.85:
            kept = rng.randint(0, len(base))
        else:
            kept = len(base) + rng.randint(1, 3)  # more than the base holds: all of it is kept
        if rng.random() < 0.02:
            kept = -rng.randint(1, 3)  # a slice from the end, as the old code took it
        held = base[:kept]
        added = []
        for _ in range(rng.randint(0, 3)):
            made += 1
            added.append(_item(made, rng.choice([0, 0, 1, 3])))
        items = held + added
        if rng.random() < 0.05:
            items = items[: rng.randint(0, len(items))]  # fewer items than it keeps
        contexts[number] = items if len(items) >= len(held) else held
        threads[number] = thread
        out.append(_turn(number, thread, items, previous, kept))
    return SimpleNamespace(turns=out)


@pytest.mark.parametrize("seed", range(40))
def test_generated_sessions_give_the_reference_rows(seed: int) -> None:
    analysis = _generated(seed, 120)
    assert _items(analysis, "rec", DAY, True) == reference_items(analysis, "rec", DAY, True)


def test_last_turn_follows_its_thread_through_forks_siblings_and_a_compaction() -> None:
    a, b, c, d, e = (_item(n, 0) for n in range(5))
    analysis = SimpleNamespace(
        turns=[
            _turn(1, "main", [a, b], None, 0),
            _turn(2, "main", [a, b, c], 1, 2),  # append
            _turn(3, "side", [a, b, c, d], 2, 3),  # a fork: main's rows stay main's
            _turn(4, "main", [a, b, e], 2, 2),  # a sibling of 3 from 2: c is not in its context
            _turn(5, "side", [a, b, c, d], 3, 4),  # the fork appends nothing
            _turn(6, "main", [a], 4, 1),  # a compaction keeping only a
        ]
    )
    last = [(row[3], row[4]) for row in _items(analysis, "rec", DAY, False)]
    assert last == [(1, 6), (1, 4), (2, 2), (3, 5), (4, 4)]
    assert _items(analysis, "rec", DAY, False) == reference_items(analysis, "rec", DAY, False)

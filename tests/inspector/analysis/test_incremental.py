"""Analysing a growing recording in steps gives the batch analysis of the same exchanges."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.analysis import Analysis, analyse_exchanges
from inspector.analysis.incremental import IncrementalAnalysis
from proxy.store import read_recording

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "inspector"


def summary(analysis: Analysis) -> list[tuple[object, ...]]:
    return [
        (
            r.turn.number,
            r.turn.thread,
            r.change.kind,
            r.change.previous,
            r.state,
            [str(c) for c in r.state_changes],
            r.tokens.total,
            r.tokens.predicted_cached,
            r.compaction.sentence if r.compaction else None,
            r.notes,
        )
        for r in analysis.turns
    ]


@pytest.mark.parametrize(
    "name", ["compaction", "fork", "chain", "world", "rewrite", "remote_compaction", "tui/codex"]
)
def test_one_exchange_at_a_time_equals_the_batch(name: str) -> None:
    exchanges = read_recording(FIXTURES / f"{name}.jsonl").exchanges
    batch = analyse_exchanges(exchanges)
    incremental = IncrementalAnalysis()
    for exchange in exchanges:
        step = incremental.add([exchange])
    assert summary(step) == summary(batch)
    assert [t.name for t in step.threads] == [t.name for t in batch.threads]


def test_only_new_turns_are_analysed() -> None:
    exchanges = read_recording(FIXTURES / "compaction.jsonl").exchanges
    incremental = IncrementalAnalysis()
    first = incremental.add(exchanges[:3])
    second = incremental.add(exchanges[3:])
    assert all(a is b for a, b in zip(second.turns[:3], first.turns[:3], strict=True))  # not redone
    assert [r.change.kind for r in second.turns] == ["initial", "append", "append", "append", "compaction"]

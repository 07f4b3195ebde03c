"""Analysing a growing recording in steps gives the batch analysis of the same exchanges."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.inspector.analysis import Analysis, IncrementalAnalysis, analyse_exchanges
from ctxscope.proxy.store import read_recording

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
        incremental.add(exchange)
        step = incremental.result()
    assert step == batch  # the whole object, not a summary of it
    assert summary(step) == summary(batch)
    assert [t.name for t in step.threads] == [t.name for t in batch.threads]


def test_only_new_turns_are_analysed() -> None:
    exchanges = read_recording(FIXTURES / "compaction.jsonl").exchanges
    incremental = IncrementalAnalysis()
    first = incremental.extend(exchanges[:3])
    second = incremental.extend(exchanges[3:])
    assert all(a is b for a, b in zip(second.turns[:3], first.turns[:3], strict=True))  # not redone
    assert [r.change.kind for r in second.turns] == ["initial", "append", "append", "append", "compaction"]


def test_the_followed_codex_fixture_marks_the_base_prompt_as_the_batch_does() -> None:
    # `inspect --follow` once skipped base-prompt marking: input[0] read `developer_message` and
    # 4,245 tokens moved between kinds.
    exchanges = read_recording(FIXTURES / "tui" / "codex.jsonl").exchanges
    incremental = IncrementalAnalysis()
    for exchange in exchanges:
        incremental.add(exchange)
        incremental.result()
    step, batch = incremental.result(), analyse_exchanges(exchanges)
    assert step.turns[0].turn.items[0].kind == batch.turns[0].turn.items[0].kind == "instructions"
    assert [r.tokens.by_kind for r in step.turns] == [r.tokens.by_kind for r in batch.turns]


def test_an_exchange_that_started_earlier_renumbers_the_turns_and_is_analysed_again() -> None:
    exchanges = read_recording(FIXTURES / "compaction.jsonl").exchanges
    incremental = IncrementalAnalysis()
    incremental.extend([exchanges[0], *exchanges[2:]])
    late = incremental.extend([exchanges[1]])  # written last, started second
    assert late == analyse_exchanges(exchanges)

"""The committed edge recordings (tests/fixtures/inspector) still read and analyse as built today."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.inspector.analysis import analyse_exchanges, analyse_recording
from tests.inspector.edge_support import EDGES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "inspector"


@pytest.mark.parametrize("name", sorted(EDGES))
def test_committed_fixture_matches_its_builder(name: str) -> None:
    stored = analyse_recording(FIXTURES / f"{name}.jsonl")
    fresh = analyse_exchanges(EDGES[name]().exchanges)

    def shape(analysis: object) -> list[tuple[object, ...]]:
        return [
            (
                t.turn.thread,
                t.change.kind,
                t.change.kept,
                len(t.change.added),
                len(t.change.removed),
                t.turn.status,
                tuple(t.state_changes),
                tuple(i.label for i in t.turn.items),
            )
            for t in analysis.turns
        ]  # type: ignore[attr-defined]

    assert shape(stored) == shape(fresh), "regenerate with tests/fixtures/inspector/make_fixtures.py"

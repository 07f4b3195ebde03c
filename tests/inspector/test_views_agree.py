"""Every view numbers a turn's items the same way: the TUI's turn view counts what `diff` counts
(`kept K +A -R`, the analysis's one change), labels old and new positions where both appear, and
shows the same answer; on every fixture recording."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.changes import change_words
from ctxscope.inspector.reports import diff_report
from ctxscope.inspector.tui.viewmodel.turn import turn_view

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "inspector"
RECORDINGS = sorted(FIXTURES.glob("*.jsonl")) + sorted((FIXTURES / "tui").glob("*.jsonl"))


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_the_tui_turn_view_counts_what_the_report_counts(path: Path) -> None:
    analysis = analyse_recording(path)
    report = diff_report(analysis)
    by_number = {r.turn.number: r for r in analysis.turns}
    for doc in report.turns:
        result = by_number[doc.turn]
        target = by_number.get(doc.change.previous) if doc.change.previous is not None else None
        lines = [line.text for line in turn_view(result, target, reason="previous", expanded=set()).lines]
        (head,) = [line for line in lines if line.startswith("input[]")]
        words = change_words(doc.change.kept, doc.change.added, doc.change.removed)
        assert head.startswith(f"input[]  {doc.items} item") and f": {words}" in head, (doc.turn, head)
        items = [line for line in lines if line[:4] in ("  + ", "  - ", "  ~ ", "  = ")]
        if doc.change.removed and target is not None:
            # old and new positions side by side: each line says whose it is
            assert "old #: turn" in head
            assert all(" old #" in line for line in items if line.startswith("  - ")), (doc.turn, items)
            assert all(" new #" in line for line in items if line[:4] in ("  + ", "  ~ ")), (doc.turn, items)
        (answer,) = [line for line in lines if line.startswith("answer")]
        assert answer.startswith(f"answer  {doc.answer.status}")

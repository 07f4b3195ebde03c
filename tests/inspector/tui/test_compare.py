"""`ctxscope inspect A B`: the comparison screen aligned with one inserted turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.inspector.analysis.compare import compare_analyses
from ctxscope.inspector.tui.app import InspectorApp
from ctxscope.inspector.tui.loader import load
from ctxscope.inspector.tui.screens.compare import CompareScreen
from ctxscope.inspector.tui.snapshot import settle
from ctxscope.inspector.tui.viewmodel.compare import detail_lines, pair_lines
from ctxscope.inspector.tui.widgets import LinesView
from tests.inspector.analysis.test_alignment import session

pytestmark = pytest.mark.anyio


def pair_files(tmp_path: Path) -> tuple[Path, Path]:
    a = session(["one", "two", "three"]).write(tmp_path / "a.jsonl")
    b = session(["one", "an extra question", "two", "three"], cwd="/work/b").write(tmp_path / "b.jsonl")
    return a, b


def test_rows_mark_the_unpaired_turn(tmp_path: Path) -> None:
    a, b = pair_files(tmp_path)
    comparison = compare_analyses(load(a).analysis, load(b).analysis)
    rows = [line.text for line in pair_lines(comparison)]
    assert len(rows) == 4
    assert "A   -  B   2" in rows[1] and "only in B" in rows[1]
    assert all("only in" not in row for row in rows[:1] + rows[2:])
    detail = [line.text for line in detail_lines(comparison, 2)]
    assert any('user: "an extra question"' in text for text in detail)


async def test_the_comparison_screen_shows_aligned_pairs(tmp_path: Path) -> None:
    a, b = pair_files(tmp_path)
    app = InspectorApp(a, b)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(50):
            await settle(pilot)
            if isinstance(app.screen, CompareScreen) and app.screen.comparison is not None:
                break
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.comparison is not None
        pairs = screen.query_one("#pairs", LinesView)
        assert len(pairs.lines) == 4
        await pilot.press("down")
        await pilot.pause()
        detail = [line.text for line in screen.query_one("#pair", LinesView).lines]
        assert detail[0].startswith("Row 2") and "only in B" in detail[0]
        status = str(screen.query_one("#status").render())
        assert "1 only in B" in status and "1 same" in status

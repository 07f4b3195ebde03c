"""A growing recording's timeline (stages of a long file, a followed recording): the rows and lines
kept from the analysis before are reused, and what is drawn equals a timeline made afresh."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from ctxscope.inspector.analysis.analyse import IncrementalAnalysis
from ctxscope.inspector.tui.viewmodel import Inspector, Line
from ctxscope.inspector.tui.widgets.lines_view import LinesView
from ctxscope.proxy.store import read_recording

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDINGS = sorted(p for p in FIXTURES.rglob("*.jsonl") if p.parent.name != "redact")


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.relative_to(FIXTURES).as_posix())
def test_a_timeline_grown_an_exchange_at_a_time_equals_one_made_afresh(path: Path) -> None:
    recording = read_recording(path, shared_inputs=True)
    analysis = IncrementalAnalysis(source=str(path), header=recording.header)
    grown: Inspector | None = None
    for exchange in recording.exchanges:
        analysis.add(exchange)
        result = analysis.result()
        # the `c` flags known (as the live feed knows them), or not yet (a stage of a long file)
        cache = {r.turn.number: r.cache for r in result.turns if r.cache is not None} if exchange.id % 2 else None
        if grown is None:
            grown = Inspector(result, other_requests=result.other_requests, cache=cache)
        else:
            grown.replace(result, other_requests=result.other_requests, cache=cache)
        fresh = Inspector(result, other_requests=result.other_requests, cache=cache)
        for width in (60, 120):
            assert grown.timeline(width) == fresh.timeline(width)
        if result.turns:
            grown.toggle_mark(result.turns[0].turn.number)
            fresh.toggle_mark(result.turns[0].turn.number)
            assert grown.timeline(100) == fresh.timeline(100)
            grown.toggle_mark(result.turns[0].turn.number)


def test_an_appended_turn_draws_only_its_own_row() -> None:
    path = FIXTURES / "codex" / "codex-0.169.0.jsonl"
    recording = read_recording(path, shared_inputs=True)
    analysis = IncrementalAnalysis(source=str(path), header=recording.header)
    analysis.extend(recording.exchanges[:-1])
    inspector = Inspector(analysis.result())
    before = inspector.timeline(100)
    assert before
    added = inspector.replace(analysis.extend(recording.exchanges[-1:]), other_requests=0)
    after = inspector.timeline(100)
    assert added == 1 and len(after) == len(before) + 1
    assert all(a is b for a, b in zip(before, after, strict=False))  # the same lines, not drawn again


class _Lines(App[None]):
    def compose(self) -> ComposeResult:
        yield LinesView()


def _lines(texts: list[str]) -> list[Line]:
    return [Line.plain(t) for t in texts]


def _shown(view: LinesView) -> list[str]:
    prompts = [view.get_option_at_index(i).prompt for i in range(view.option_count)]
    return [p.plain if isinstance(p, Text) else str(p) for p in prompts]


@pytest.mark.anyio
async def test_lines_grown_in_place_are_the_lines_drawn_afresh() -> None:
    app = _Lines()
    async with app.run_test(size=(60, 12)) as pilot:
        view = app.query_one(LinesView)
        first = [f"row {i}" for i in range(200)]
        view.show_lines(_lines(first))
        view.highlighted = 150
        await pilot.pause()
        kept = view.get_option_at_index(10)
        grown = [*first[:7], "row 7 changed", *first[8:], "row 200", "row 201"]
        view.show_lines(_lines(grown))
        await pilot.pause()
        assert _shown(view) == grown and view.option_count == 202
        assert view.get_option_at_index(10) is kept  # in place: the unchanged options stay
        assert view.highlighted == 150  # the cursor (and so the scroll) did not move
        assert view.render_lines(view.region.reset_offset)  # it still draws
        view.needle = "row 1"  # another needle: every line is drawn again, highlighted
        view.show_lines(_lines(grown))
        await pilot.pause()
        assert view.get_option_at_index(10) is not kept and _shown(view) == grown
        many = [f"other {i}" for i in range(210)]  # most lines changed: drawn afresh
        view.show_lines(_lines(many))
        await pilot.pause()
        assert _shown(view) == many
        view.show_lines(_lines(many[:50]))  # fewer lines: drawn afresh, the cursor clamped
        await pilot.pause()
        assert _shown(view) == many[:50] and view.highlighted == 49

"""The timeline's rows and their drawn lines, kept across the analyses of a growing recording.

A recording read in stages or followed as it grows gets a new analysis for each part read, but
the turns analysed before are the same objects in it (`IncrementalAnalysis` analyses a turn once),
so a row is made again only for a new turn, or where what the row shows beside its turn changed
(the world-state flag, the cache flag); a line is drawn again only for a new row, another width or
number column, or the mark moving. Without this every part read rebuilt and redrew every row:
at 5,000 turns about 0.4 s of the 0.7 s from a followed turn's append to its row on screen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from ctxscope.inspector.analysis.analyse import TurnAnalysis
from ctxscope.inspector.reports.models import CostDoc
from ctxscope.inspector.tui.viewmodel.lines import Line
from ctxscope.inspector.tui.viewmodel.timeline import TimelineRow, timeline_row

__all__ = ["TimelineRows"]


class TimelineRows:
    """Makes the rows of each analysis's turns and draws them, reusing what is unchanged."""

    def __init__(self) -> None:
        self._rows: dict[int, tuple[TurnAnalysis, bool, bool, TimelineRow]] = {}
        """Turn number → (the turn's analysis, world changed, cache break, its row)."""
        self._lines: dict[int, tuple[TimelineRow, int, bool, int, Line]] = {}
        """Turn number → (its row, width, marked, number width, the row's line)."""
        self._costs: dict[tuple[int, int], CostDoc] = {}
        """Each row's cost by (turn, exchange): a turn's cost depends on its own request and response
        only, so it outlives an analysis that renumbered the turns (and made every row anew)."""

    def rows(
        self, turns: Iterable[TurnAnalysis], *, world_changes: set[int], cache_breaks: set[int]
    ) -> list[TimelineRow]:
        """One row per turn, in order; `world_changes` and `cache_breaks` are the turn numbers whose
        `w` and `c` flags are set."""
        rows: list[TimelineRow] = []
        kept: dict[int, tuple[TurnAnalysis, bool, bool, TimelineRow]] = {}
        for result in turns:
            number = result.turn.number
            world, brk = number in world_changes, number in cache_breaks
            known = self._rows.get(number)
            if known is not None and known[0] is result and known[1] == world and known[2] == brk:
                row = known[3]
            else:
                cost_key = (number, result.turn.exchange.id)
                row = timeline_row(result, world_changed=world, cost=self._costs.get(cost_key))
                if row.cost:
                    self._costs[cost_key] = row.cost
                if brk:
                    row = replace(row, cache_break=True)
            kept[number] = (result, world, brk, row)
            rows.append(row)
        self._rows = kept  # turns no longer shown (a shorter analysis) are let go
        return rows

    def lines(
        self, rows: Sequence[TimelineRow], numbers: Iterable[int], *, width: int, marked: int | None, number_width: int
    ) -> list[Line]:
        """The drawn line of each row in `numbers` (turn numbers, from 1, indexing `rows`)."""
        lines: list[Line] = []
        for number in numbers:
            row = rows[number - 1]
            is_marked = number == marked
            known = self._lines.get(number)
            if known is not None and known[0] is row and known[1:4] == (width, is_marked, number_width):
                lines.append(known[4])
                continue
            line = row.line(width=width, marked=is_marked, number_width=number_width)
            self._lines[number] = (row, width, is_marked, number_width, line)
            lines.append(line)
        return lines

"""Analysis of a growing recording (`ctxscope inspect --follow`): each `add` analyses only the turns
that are new, continuing every thread from where it stopped.

Turns and threads are re-derived from all exchanges (cheap: no classification), items are
classified once (the classifier and each turn's items are kept), and `_analyse_turn` runs only
for turns not analysed before, with the same carries the batch analysis would use, so the result
equals `analyse_exchanges` over the same exchanges. Should a new exchange move an earlier turn to
another thread, everything is analysed again.
"""

from __future__ import annotations

from collections.abc import Iterable

from inspector.analysis.analyse import Analysis, TurnAnalysis, _analyse_turn, _Carry
from inspector.analysis.items import Item, ItemClassifier
from inspector.analysis.threads import assign_threads
from inspector.analysis.turns import extract_turns
from proxy.model import Exchange, RecordingHeader


class IncrementalAnalysis:
    """The analysis of a recording that keeps growing."""

    def __init__(self, *, source: str = "", header: RecordingHeader | None = None) -> None:
        self.source = source
        self.header = header
        self.exchanges: list[Exchange] = []
        self._classifier = ItemClassifier()
        self._items: dict[int, list[Item]] = {}
        """Exchange id → its turn's classified items."""
        self._results: dict[int, TurnAnalysis] = {}
        self._carries: dict[int, _Carry] = {}
        self._threads: dict[int, str] = {}
        """Turn number → thread name when analysed."""

    def add(self, exchanges: Iterable[Exchange], *, warnings: Iterable[str] = ()) -> Analysis:
        """Take newly read exchanges; the analysis of everything so far."""
        self.exchanges += exchanges
        turns, skipped = extract_turns(self.exchanges)
        for turn in turns:
            items = self._items.get(turn.exchange.id)
            if items is None:
                items = self._classifier.classify(turn.raw_input)
                self._items[turn.exchange.id] = items
            turn.items = items
        threads = assign_threads(turns)
        if any(self._threads.get(t.number, t.thread) != t.thread for t in turns):
            self._results.clear()
            self._carries.clear()
            self._threads.clear()
        for thread in threads:
            for index, turn in enumerate(thread.turns):
                if turn.number in self._results:
                    continue
                fork = index == 0 and thread.forked_from is not None
                if index == 0:
                    carry = self._carries.get(thread.forked_from) if thread.forked_from is not None else None
                    before = None
                else:
                    carry = self._carries[thread.turns[index - 1].number]
                    if index >= 2:
                        before = self._carries[thread.turns[index - 2].number]
                    elif thread.forked_from is not None:
                        before = self._carries.get(thread.forked_from)
                    else:
                        before = None
                result, next_carry = _analyse_turn(turn, carry, fork, before)
                self._results[turn.number] = result
                self._carries[turn.number] = next_carry
                self._threads[turn.number] = turn.thread
        ordered = [self._results[t.number] for t in turns]
        return Analysis(self.source, self.header, ordered, threads, [*warnings, *skipped])


__all__ = ["IncrementalAnalysis"]

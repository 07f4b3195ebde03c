"""The first half of the analysis: a recording's exchanges made into turns, their inputs classified,
the turns put in threads, side requests counted apart.

`Grouper` takes exchanges one at a time and gives their `Grouping`; `IncrementalAnalysis`
(`ctxscope.inspector.analysis.analyse`) is a `Grouper` that goes on to analyse each turn. This
module imports none of that second half (answers, world state, diffs, cache, plan mode's events),
so `ctxscope info`, which counts threads and turns, starts without it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ctxscope.inspector.analysis.inputs import classify_input
from ctxscope.inspector.analysis.items import Item, ItemClassifier
from ctxscope.inspector.analysis.threads import Thread, assign_threads
from ctxscope.inspector.analysis.turns import Turn, extract_turns
from ctxscope.proxy.model import Exchange, RecordingHeader
from ctxscope.proxy.responses.vocabulary import SideKind

__all__ = ["Grouper", "Grouping", "is_handshake", "other_requests"]


@dataclass
class Grouping:
    """The turns of a recording put in threads: the first half of the analysis."""

    turns: list[Turn]
    threads: list[Thread]
    skipped: list[str]
    """Warnings about exchanges that are not model requests."""
    side_requests: dict[str, int]
    """Side requests by kind (see `Analysis.side_requests`)."""

    @property
    def conversations(self) -> list[Thread]:
        """The conversation threads (side requests left out)."""
        return [t for t in self.threads if t.side is None]


class Grouper:
    """`add(exchange)` takes one exchange at a time; `grouping()` is the grouping of all so far.
    Each exchange's input is classified once, however often `grouping()` is asked."""

    def __init__(self, *, source: str = "", header: RecordingHeader | None = None) -> None:
        self.source = source
        self.header = header
        self.exchanges: list[Exchange] = []
        self.warnings: list[str] = []
        """Warnings of the reader (a torn line); the analysis adds its own about skipped exchanges."""
        self._classifier = ItemClassifier()
        self._items: dict[int, Sequence[Item]] = {}
        """Exchange id → its turn's classified items (base prompt marked)."""

    def add(self, exchange: Exchange) -> None:
        """Take one more exchange of the recording."""
        self.exchanges.append(exchange)

    def grouping(self) -> Grouping:
        """The turns and threads of every exchange so far, without analysing each turn: what the
        analysis's threads are (`ctxscope info` counts them without paying for the rest)."""
        turns, skipped = extract_turns(self.exchanges)
        for turn in turns:
            items = self._items.get(turn.exchange.id)
            if items is None:
                items = classify_input(turn.raw_input, turn.body, self._classifier)
                self._items[turn.exchange.id] = items
            turn.items = items
        threads = assign_threads(turns)
        sides = Counter(t.side for t in turns if t.side is not None)
        sides.update(SideKind.MODELS.value for e in self.exchanges if e.endpoint == SideKind.MODELS.value)
        return Grouping(turns, threads, skipped, dict(sides))


def is_handshake(exchange: Exchange) -> bool:
    """A WebSocket's opening exchange: not a request of its own (its frames are the requests)."""
    return exchange.endpoint == "websocket" and not isinstance(exchange.request_body, dict)


def other_requests(exchanges: list[Exchange], turns: int) -> int:
    """How many of `exchanges` are requests but not one of the `turns` model turns made of them."""
    return sum(1 for e in exchanges if not is_handshake(e)) - turns

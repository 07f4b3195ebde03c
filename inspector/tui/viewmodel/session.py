"""The inspector's state between the analysis and the widgets: the analysis of a recording, the
marked turn, the filter, search hits, open folds and the token sort. Plain Python, no Textual:
widgets ask it for display lines and tell it what the reader did.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from ctxscope.inspector.analysis.agents import Agent, agent_tree, turn_agents
from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.cache import CacheTurn, cache_report
from ctxscope.inspector.analysis.composition import CompositionReport, composition_report
from ctxscope.inspector.analysis.cost import default_prices
from ctxscope.inspector.analysis.item_diff import item_text
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.analysis.query import Hit, filter_turns, search
from ctxscope.inspector.analysis.world_history import WorldHistory, world_history
from ctxscope.inspector.cost_report import cost_document, cost_rows
from ctxscope.inspector.reports import render_markdown, show_report
from ctxscope.inspector.reports.agents import agent_docs
from ctxscope.inspector.reports.build import first_cwd
from ctxscope.inspector.reports.models import AgentDoc
from ctxscope.inspector.tui.viewmodel.actions import OpenItem, OpenSummary
from ctxscope.inspector.tui.viewmodel.agents import agents_lines
from ctxscope.inspector.tui.viewmodel.composition import cache_break_sentence, composition_lines
from ctxscope.inspector.tui.viewmodel.cost import cost_lines
from ctxscope.inspector.tui.viewmodel.lines import Line, count
from ctxscope.inspector.tui.viewmodel.panels import TOKEN_SORTS, compaction_lines, token_lines
from ctxscope.inspector.tui.viewmodel.timeline import (
    ROW_WIDTH,
    TimelineRow,
    other_requests_line,
)
from ctxscope.inspector.tui.viewmodel.timeline_rows import TimelineRows
from ctxscope.inspector.tui.viewmodel.turn import turn_view
from ctxscope.inspector.tui.viewmodel.world import world_lines

View = Literal["turn", "compaction", "tokens", "composition", "cost", "agents"]
"""What the main pane shows for the highlighted turn."""
VIEWS: tuple[View, ...] = get_args(View)
TRUNCATE_CHARS = 64_000
"""Item texts longer than this are cut in the item view until the reader expands them."""


@dataclass(frozen=True)
class Counts:
    """The timeline's counts (the same as `info`'s and the report's)."""

    threads: int
    turns: int
    side_requests: int


@dataclass(frozen=True)
class ItemDetail:
    """The full text of one item, possibly truncated, and its JSON for copying."""

    title: str
    text: str
    truncated: int
    """Characters left out (0: the whole text is shown)."""
    json: str


def ws_connections(analysis: Analysis) -> dict[int, tuple[int, int]]:
    """Turn number → (its WebSocket connection, numbered from 1 in order of first use; which of that
    connection's frames it was), for the turns sent over a WebSocket. The recorder notes the
    connection's handshake exchange on each frame's exchange (`meta.connection`)."""
    numbers: dict[object, int] = {}
    frames: dict[object, int] = {}
    out: dict[int, tuple[int, int]] = {}
    for result in analysis.turns:
        exchange = result.turn.exchange
        key = exchange.meta.get("connection") if exchange.endpoint == "websocket" else None
        if key is None:
            continue
        numbers.setdefault(key, len(numbers) + 1)
        frames[key] = frames.get(key, 0) + 1
        out[result.turn.number] = (numbers[key], frames[key])
    return out


CALL_TYPES = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}
"""A tool call's item type → its output's."""


def _call_partner(item: Item, items: Sequence[Item]) -> Item | None:
    """The output of a tool call item, or the call of an output item (by `call_id`)."""
    raw = item.raw if isinstance(item.raw, dict) else {}
    call_id = raw.get("call_id")
    if not call_id:
        return None
    if item.type in CALL_TYPES:
        want = CALL_TYPES[item.type]
    elif item.type in CALL_TYPES.values():
        want = next(k for k, v in CALL_TYPES.items() if v == item.type)
    else:
        return None
    return next(
        (o for o in items if o.type == want and isinstance(o.raw, dict) and o.raw.get("call_id") == call_id),
        None,
    )


class Inspector:
    """One recording being inspected."""

    def __init__(
        self, analysis: Analysis, *, other_requests: int = 0, cache: Mapping[int, CacheTurn] | None = None
    ) -> None:
        """`cache`: the analysis's `cache_report` by turn where it is known already (the live feed's),
        so the timeline's `c` flags are drawn from the first row."""
        self.analysis = analysis
        self.other_requests = other_requests
        self.history: WorldHistory = world_history(analysis)
        self.root = first_cwd(analysis)
        """The first turn's working directory: paths under it are shown `./…`, as in `diff`."""
        self._rows: list[TimelineRow] = []
        self._made = TimelineRows()
        """The rows and lines drawn so far, reused by the next analysis of a growing recording."""
        self._composition: CompositionReport | None = None
        self._connections: dict[int, tuple[int, int]] | None = None
        self._cache: dict[int, CacheTurn] | None = dict(cache) if cache is not None else None
        self._agents: tuple[Analysis, list[Agent]] | None = None
        self._cost: tuple[Analysis, dict[str, Any]] | None = None
        self._lock = threading.Lock()
        """The agent tree and the cost document are computed once per analysis, in a render worker
        (whichever asks first; a cancelled render's thread still finishes and keeps them), and kept
        with the analysis they are of, so a newer one (`replace`) never waits for them nor gets them."""
        self.marked: int | None = None
        self.expanded: set[str] = set()
        self.filter = ""
        self.visible: list[int] = []
        self.needle = ""
        self.hits: list[Hit] = []
        self.token_sort = TOKEN_SORTS[0]
        self.side_folded = False
        self._refresh_rows()

    # -- loading -------------------------------------------------------------------------------

    def _refresh_rows(self) -> None:
        breaks = (
            {number for number, entry in self._cache.items() if entry.brk is not None}
            if self._cache is not None  # the `c` flags, where the cache forensics are known
            else set()
        )
        self._rows = self._made.rows(
            self.analysis.turns, world_changes=set(self.history.change_turns), cache_breaks=breaks
        )
        self.visible = filter_turns(self.analysis, self.filter) if self.filter else self.numbers

    def replace(self, analysis: Analysis, *, other_requests: int, cache: Mapping[int, CacheTurn] | None = None) -> int:
        """Take a newer analysis of the same (growing) recording, with its `cache_report` where
        known; returns how many turns are new. Marks, folds, the filter and the search carry over."""
        before = len(self.analysis.turns)
        self.analysis, self.other_requests = analysis, other_requests
        self.history = world_history(analysis)
        self.root = first_cwd(analysis)
        self._composition, self._connections = None, None
        self._cache = dict(cache) if cache is not None else None
        self._refresh_rows()
        if self.needle:
            self.hits = search(analysis, self.needle)
        return len(analysis.turns) - before

    @property
    def numbers(self) -> list[int]:
        """Every turn number."""
        return [r.turn.number for r in self.analysis.turns]

    def result(self, number: int) -> TurnAnalysis:
        """The analysed turn (a one-line `ConfigError` when there is none)."""
        return self.analysis.turn(number)

    # -- timeline ------------------------------------------------------------------------------

    def timeline(self, width: int = ROW_WIDTH) -> list[Line]:
        """One line per visible turn drawn `width` columns wide, then the folded line for non-turn
        requests. Side requests are left out while they are folded (`toggle_side`)."""
        digits = max(4, len(str(len(self._rows))))
        shown = (n for n in self.visible if not (self.side_folded and self._rows[n - 1].side is not None))
        lines = self._made.lines(self._rows, shown, width=width, marked=self.marked, number_width=digits)
        if self.side_folded and (hidden := self.counts().side_requests):
            folded = f"  {count(hidden, 'side request')} folded (h shows them)"
            lines.append(Line.plain(folded, "dim", OpenSummary("side")))
        if self.other_requests:
            lines.append(other_requests_line(self.other_requests))
        return lines

    def mark_cache_breaks(self) -> None:
        """Flag the timeline rows of turns whose cached prefix broke (computes `cache` if needed:
        about 0.6 s on 1,000 turns, so the screen asks for it after the first draw)."""
        if self.cache:
            self._refresh_rows()

    def counts(self) -> Counts:
        """What the timeline shows: conversation threads and turns, side requests apart."""
        conversation = [row for row in self._rows if row.side is None]
        return Counts(
            threads=len({row.thread for row in conversation}),
            turns=len(conversation),
            side_requests=sum(self.analysis.side_requests.values()),
        )

    def api_equivalent(self) -> bool:
        """Some request's cost is API-equivalent (a ChatGPT login's, billed by plan): the header says
        so for the timeline's cost figures."""
        return any(row.cost is not None and row.cost.api_equivalent for row in self._rows)

    def timeline_title(self, current: int | None) -> str:
        """`turn 5 of 120`, with the filter when one is set."""
        total = len(self.analysis.turns)
        counts = self.counts()
        side = f", {counts.side_requests} side" if counts.side_requests else ""
        where = f"turn {current} of {total}" if current else f"{counts.turns} turns{side}"
        if self.filter:
            where += f"  filter {self.filter!r}: {len(self.visible)} shown"
        return where

    def toggle_side(self) -> None:
        """Fold the side requests out of the timeline, or show them again."""
        self.side_folded = not self.side_folded

    def set_filter(self, expression: str) -> None:
        """Show only the turns matching `expression` (empty: all); `ConfigError` for a bad one."""
        expression = expression.strip()
        visible = filter_turns(self.analysis, expression) if expression else self.numbers
        self.filter, self.visible = expression, visible

    # -- turn ----------------------------------------------------------------------------------

    def toggle_mark(self, number: int) -> None:
        """Mark `number` as the diff target of every other turn, or clear the mark."""
        self.marked = None if self.marked == number else number

    def target(self, number: int) -> tuple[TurnAnalysis | None, str]:
        """What `number` is diffed against: the marked turn, else the previous turn of its thread."""
        if self.marked is not None and self.marked != number:
            return self.result(self.marked), "marked"
        previous = self.result(number).change.previous
        return (self.result(previous), "previous in thread") if previous else (None, "")

    @property
    def composition(self) -> CompositionReport:
        """`composition_report` of the analysis, computed when first asked for."""
        if self._composition is None:
            self._composition = composition_report(self.analysis)
        return self._composition

    @property
    def cache(self) -> dict[int, CacheTurn]:
        """`cache_report` of the analysis by turn number, computed when first asked for."""
        if self._cache is None:
            self._cache = {entry.turn: entry for entry in cache_report(self.analysis)}
        return self._cache

    @property
    def agents(self) -> list[Agent]:
        """The analysis's agent tree (`agent_tree`), built when first asked for."""
        return self._agents_of(self.analysis)

    def _agents_of(self, analysis: Analysis) -> list[Agent]:
        with self._lock:
            if self._agents is None or self._agents[0] is not analysis:
                self._agents = (analysis, agent_tree(analysis))
            return self._agents[1]

    @property
    def agent_docs(self) -> list[AgentDoc]:
        """The report's documents of the agent tree (`agent_docs`, as `show` and `info` have them)."""
        analysis = self.analysis
        return agent_docs(analysis, tree=self._agents_of(analysis))

    @property
    def cost_document(self) -> dict[str, Any]:
        """`ctxscope cost --format json`'s document of the recording at the default prices
        (`$CTXSCOPE_PRICES` over the dataset), its requests named by the recording's file name."""
        analysis = self.analysis
        tree = self._agents_of(analysis)
        with self._lock:
            if self._cost is None or self._cost[0] is not analysis:
                table = default_prices()
                rows = cost_rows(analysis, analysis.source, table, turn_agents(tree))
                self._cost = (analysis, cost_document(rows, table))
            return self._cost[1]

    def connection(self, number: int) -> str | None:
        """`WebSocket connection 1 of 2, frame 3 on it`: which connection carried turn `number`'s
        `response.create` frame; None for an HTTP request (or a recording without the recorder's
        `meta.connection`)."""
        if self._connections is None:
            self._connections = ws_connections(self.analysis)
        where = self._connections.get(number)
        if where is None:
            return None
        total = len({n for n, _ in self._connections.values()})
        return f"WebSocket connection {where[0]} of {total}, frame {where[1]} on it"

    def turn_lines(self, number: int, view: View = "turn", *, width: int = 80) -> list[Line]:
        """The main pane for `number` in one of `VIEWS` (`width`: the pane's, for the bars)."""
        result = self.result(number)
        if view == "composition":
            return composition_lines(self.composition, number, width=width, cache=self.cache.get(number))
        if view == "compaction":
            return compaction_lines(result)
        if view == "tokens":
            return token_lines(result, sort=self.token_sort)
        if view == "cost":
            return cost_lines(self.cost_document, number, width=width)
        if view == "agents":
            words = {row.number: row.short_words() for row in self._rows}
            return agents_lines(self.agent_docs, self.cost_document["turns"], number, words, width=width)
        target, reason = self.target(number)
        lines = turn_view(result, target, reason=reason, expanded=self.expanded, root=self.root).lines
        cache = self.cache.get(number)
        if cache is not None and cache.brk is not None:  # named under the heading, where it is read first
            lines.insert(2, Line.plain(f"  {cache_break_sentence(cache)}", "warn"))
        connection = self.connection(number)
        if connection is not None:
            lines.insert(2, Line.plain(f"  via {connection}", "dim"))
        return lines

    def toggle_fold(self, fold_id: str) -> None:
        """Open a folded run, or close it again."""
        self.expanded ^= {fold_id}

    def cycle_token_sort(self) -> None:
        """Sort the tokens view by the next key."""
        self.token_sort = TOKEN_SORTS[(TOKEN_SORTS.index(self.token_sort) + 1) % len(TOKEN_SORTS)]

    def world(self, number: int, *, width: int = 60) -> list[Line]:
        """The world-state panel at `number`."""
        return world_lines(self.result(number).state.values(), self.history, number, width=width)

    def world_jump(self, number: int, forward: bool) -> int | None:
        """The next (or previous) turn where the world state changed."""
        return self.history.next_change(number) if forward else self.history.previous_change(number)

    def item(self, ref: OpenItem, *, full: bool = False) -> ItemDetail | None:
        """The item `ref` points at (None when there is none)."""
        owner = self.result(ref.turn)
        items = owner.turn.items
        index = ref.position
        if not 0 <= index < len(items):
            return None
        item = items[index]
        text = item_text(item)
        partner = _call_partner(item, items)
        if partner is not None:  # a tool call reads with its output (and an output with its call)
            call, output = (item, partner) if partner.position > item.position else (partner, item)
            text = f"{item_text(call)}\n\n--- output (item #{output.position}) ---\n{item_text(output)}"
        cut = 0 if full or len(text) <= TRUNCATE_CHARS else len(text) - TRUNCATE_CHARS
        raw = json.dumps(item.raw, indent=2, ensure_ascii=False, default=str)
        title = f"turn {owner.turn.number} item #{item.position}: {item.label}"
        return ItemDetail(title, text[:TRUNCATE_CHARS] if cut else text, cut, raw)

    # -- search --------------------------------------------------------------------------------

    def find(self, needle: str) -> list[Hit]:
        """Search every turn for `needle`; the hits are kept for `next_hit`."""
        self.needle = needle
        self.hits = search(self.analysis, needle) if needle else []
        return self.hits

    def first_hit(self, number: int) -> int:
        """The index of the first hit at or after turn `number` (wrapping to the first)."""
        return next((i for i, h in enumerate(self.hits) if h.turn >= number), 0)

    def step_hit(self, index: int | None, number: int, forward: bool = True) -> int:
        """The hit after (or before) hit `index`, wrapping; without one, the first hit after
        (or before) turn `number`. Steps hit by hit, so two hits in one turn are two steps."""
        if index is not None and 0 <= index < len(self.hits):
            return (index + (1 if forward else -1)) % len(self.hits)
        hit = self.next_hit(number, forward)
        return self.hits.index(hit) if hit is not None else 0

    def next_hit(self, number: int, forward: bool = True) -> Hit | None:
        """The first hit after (or before) turn `number`, wrapping around."""
        if not self.hits:
            return None
        if forward:
            return next((h for h in self.hits if h.turn > number), self.hits[0])
        return next((h for h in reversed(self.hits) if h.turn < number), self.hits[-1])

    # -- export --------------------------------------------------------------------------------

    def markdown(self, number: int) -> str:
        """The `ctxscope show` report of a turn as markdown (what the export action writes)."""
        return render_markdown(show_report(self.analysis, number))

    def check_turn(self, number: int) -> int:
        """`number` if the recording has that turn, else a one-line `ConfigError`."""
        self.result(number)
        return number


__all__ = ["TRUNCATE_CHARS", "VIEWS", "Counts", "Inspector", "ItemDetail", "View", "ws_connections"]

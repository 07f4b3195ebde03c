"""The whole analysis of one recording: turns, threads, change kinds, world state, diffs, tokens and
compactions, computed in one pass over the turns of each thread.

Work is incremental where a thread appends (the usual case): items are classified once per distinct
content, world state and token totals continue from the previous turn, so a long growing session
costs about as much as reading it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxscope.harness.modes.plan.enforcement import submission_tool
from ctxscope.inspector.analysis.answers import Answer, turn_answer
from ctxscope.inspector.analysis.attribution import ItemTotals, TokenReport, attribute, item_totals
from ctxscope.inspector.analysis.cache import CacheModel, CacheTurn
from ctxscope.inspector.analysis.changes import ChangeKind, TurnChange, compare_turns
from ctxscope.inspector.analysis.compaction import CompactionReport, compaction_report
from ctxscope.inspector.analysis.diffs import (
    ToolDiff,
    effective_tools,
    in_band_items,
    instructions_diff,
    params_diff,
    tool_name,
    tools_diff,
)
from ctxscope.inspector.analysis.goal_events import GoalEvent, goal_echoes, goal_events, goal_events_by_answer
from ctxscope.inspector.analysis.grouping import Grouper, Grouping, is_handshake, other_requests
from ctxscope.inspector.analysis.instructions import effective_instructions
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.analysis.mode_events import CallNames, ModeEvent, call_names, mode_events, request_mode
from ctxscope.inspector.analysis.threads import Thread
from ctxscope.inspector.analysis.turns import Turn
from ctxscope.inspector.analysis.world_state import (
    ObservedState,
    StateChange,
    empty_state,
    fold_items,
    state_changes,
    with_request,
)
from ctxscope.proxy.errors import ConfigError, RecordingError
from ctxscope.proxy.model import Exchange, RecordingHeader
from ctxscope.proxy.responses.vocabulary import COMPACTION_REQUEST_KINDS, COMPACTION_TRIGGER, RequestKind
from ctxscope.proxy.store import read_recording


@dataclass
class TurnAnalysis:
    """Everything known about one turn, relative to the previous turn of its thread."""

    turn: Turn
    change: TurnChange
    state: ObservedState
    """The world state after this turn's input, with the request's model and reasoning effort."""
    state_changes: list[StateChange]
    """World-state fields that differ from the previous turn of the thread (reports word them)."""
    instructions_diff: list[str]
    tools: ToolDiff
    params: dict[str, tuple[Any, Any]]
    tokens: TokenReport
    compaction: CompactionReport | None = None
    notes: list[str] = field(default_factory=list)
    mode_events: list[ModeEvent] = field(default_factory=list)
    """What plan mode did in this turn: its added items (mode switches, blocked tools) and its answer
    (a plan submitted, the model's goal update)."""
    goal_events: list[GoalEvent] = field(default_factory=list)
    """What happened to the thread goal (set, continuation #N, paused, cleared, ...), from the
    turn's world-state changes."""
    goal_echoes: list[GoalEvent] = field(default_factory=list)
    """Goal events this turn's context repeats from an earlier turn's answer (the model's goal call,
    now history): told once, on the turn that made the call, so no view says them again here."""
    answer: Answer = field(default_factory=Answer)
    """What this request got back: output items, status with the error, usage."""
    cache: CacheTurn | None = None
    """The cache model's entry (`cache.CacheModel`): the prefix, its break and the prediction that
    `tokens.shared_prefix` and `tokens.predicted_cached` repeat; set once every turn is analysed."""


@dataclass
class Analysis:
    """A recording analysed: turns in request order, threads, and warnings about what was skipped."""

    source: str
    header: RecordingHeader | None
    turns: list[TurnAnalysis]
    threads: list[Thread]
    warnings: list[str] = field(default_factory=list)
    side_requests: dict[str, int] = field(default_factory=dict)
    """Requests made beside the conversations, by `SideKind` (title, prewarm, models list): counted
    apart from the conversation threads, never a turn of one."""
    other_requests: int = 0
    """Requests of the recording that are not model turns (a models list, summarised traffic), a
    WebSocket's handshake left out (its frames are the requests): `ctxscope run`'s count and the
    TUI's "+N other requests" (`other_requests`)."""

    @property
    def conversations(self) -> list[Thread]:
        """The conversation threads (the threads that fold side requests left out)."""
        return [t for t in self.threads if t.side is None]

    def turn(self, number: int) -> TurnAnalysis:
        """The turn numbered `number` (1-based); a one-line error when there is none."""
        if not self.turns:
            raise ConfigError(f"{self.source or 'the recording'} has no model requests to show")
        if not 1 <= number <= len(self.turns):
            raise ConfigError(
                f"there is no turn {number}: {self.source or 'the recording'} has turns 1–{len(self.turns)}"
            )
        return self.turns[number - 1]

    def thread(self, name: str) -> Thread:
        """A thread by report name (`T2`) or by its explicit id; a one-line error when unknown."""
        for thread in self.threads:
            if name in (thread.name, thread.hint):
                return thread
        names = ", ".join(t.name for t in self.threads) or "none"
        raise ConfigError(f"there is no thread {name!r} (threads: {names})")


@dataclass
class _Carry:
    """What the next turn of a thread continues from."""

    turn: Turn
    items_state: ObservedState
    request_state: ObservedState
    totals: ItemTotals
    unknown: list[str]
    """Labels of the unrecognised items and parts in the turn's input."""
    mode: str | None = None
    """The collaboration mode the thread's context was in (as its mode fragments said)."""
    revisions: int = 0
    """Plans submitted in the thread so far."""
    names: CallNames | None = None
    """call_id → tool name over the turn's input (`call_names`), continued by an appending turn."""
    in_band: list[Any] = field(default_factory=list)
    """The input's in-band tool and parameter items (`in_band_items`), continued by an appending turn."""


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _unknown_labels(items: Sequence[Item]) -> list[str]:
    labels = [i.label for i in items if i.kind == "unknown"]
    return labels + [p.label for i in items for p in i.parts if p.kind == "unknown_part"]


def _notes(turn: Turn, change: TurnChange, unknown: list[str]) -> list[str]:
    notes: list[str] = []
    if turn.previous_response_id:
        rebuilt = len(turn.raw_input) - turn.sent_items
        if turn.chain_resolved:
            notes.append(
                f"previous_response_id chain: {_count(turn.sent_items, 'item')} sent, {rebuilt} rebuilt "
                f"from {turn.previous_response_id}"
            )
        else:
            notes.append(
                f"previous_response_id {turn.previous_response_id} not in the recording: context incomplete"
            )
    if (
        change.kind == ChangeKind.APPEND
        and not change.added
        and change.previous is not None
        and turn.request_kind not in COMPACTION_REQUEST_KINDS
    ):
        notes.append(f"same input as turn {change.previous} (a retry or a prewarm)")
    if change.kind == ChangeKind.REWRITE and change.removed:
        now = change.added[0].label if change.added else "nothing"
        notes.append(f"prefix broken at item {change.kept}: {change.removed[0].label} → {now}")
    elif change.kind == ChangeKind.FORK:
        notes.append(f"forked from turn {change.previous} after {_count(change.kept, 'shared item')}")
    if turn.request_kind == RequestKind.COMPACTION:
        notes.append(
            f"compaction request (request_kind compaction): {max(len(turn.items) - 1, 0)} items "
            "of history sent to be summarised" + ("" if turn.body.get("tools") else ", no tools")
        )
    elif turn.endpoint == "responses/compact":
        notes.append(f"remote compaction request (/responses/compact) over {len(turn.items)} items")
    elif turn.request_kind and turn.request_kind not in (RequestKind.TURN, turn.side):
        notes.append(f"request_kind {turn.request_kind}")
    if unknown:
        notes.append(f"{_count(len(unknown), 'unrecognised item')}: " + ", ".join(sorted(set(unknown))))
    if turn.status != "completed":
        notes.append(f"response {turn.status}" + (f": {turn.error}" if turn.error else ""))
    elif turn.error:
        notes.append(f"connection: {turn.error}")
    return notes


def _analyse_turn(
    turn: Turn, carry: _Carry | None, fork: bool, before: _Carry | None
) -> tuple[TurnAnalysis, _Carry]:
    """Analyse `turn` against `carry` (the previous turn of its thread, or the fork source)."""
    prev = carry.turn if carry else None
    change = compare_turns(
        prev.items if prev else None,
        turn.items,
        previous_number=prev.number if prev else None,
        previous_request_kind=prev.request_kind if prev else None,
        fork=fork,
    )
    appended = carry is not None and change.kind == ChangeKind.APPEND
    items_state = fold_items(
        carry.items_state if carry and appended else empty_state(), change.added if appended else turn.items
    )
    state = with_request(items_state, turn.body)
    totals = item_totals(turn.items, carry.totals if carry and appended else None)
    unknown = _unknown_labels(change.added if appended else turn.items)
    if carry and appended:
        unknown = carry.unknown + unknown
    # A local compaction request carries no tools; the turn after it is compared with the turn
    # before the request, so tools do not appear to vanish and come back around every compaction.
    head, head_carry = prev, carry
    if prev is not None and prev.request_kind in COMPACTION_REQUEST_KINDS and before is not None:
        head, head_carry = before.turn, before
    # Only the in-band items of the input change the effective tools and parameters: carried along
    # the thread, so a turn does not scan its whole history for them (O(n²) in the turns).
    if carry and appended:
        added_in_band = in_band_items(i.raw for i in change.added)
        in_band = carry.in_band + added_in_band if added_in_band else carry.in_band
    else:
        in_band = in_band_items(turn.raw_input)
    head_in_band = head_carry.in_band if head_carry is not None else []
    compaction_request = turn.request_kind in COMPACTION_REQUEST_KINDS and not turn.body.get("tools")
    if compaction_request and carry is not None:
        # A compaction request may leave out the model settings; it does not change them.
        inherited = {
            key: carry.request_state.value(key)
            for key in ("model", "reasoning_effort")
            if state.value(key) is None
        }
        state = state.model_copy(update=inherited)
    result = TurnAnalysis(
        turn=turn,
        change=change,
        state=state,
        state_changes=state_changes(carry.request_state if carry else None, state, change.added),
        instructions_diff=instructions_diff(
            effective_instructions(head.body, head.items), effective_instructions(turn.body, turn.items)
        )
        if head
        else [],
        tools=tools_diff(effective_tools(head.body, head_in_band), effective_tools(turn.body, in_band))
        if head and not compaction_request
        else ToolDiff(),
        params=params_diff(head.body, turn.body, head_in_band, in_band)
        if head and not compaction_request
        else {},
        tokens=attribute(turn.body, totals, turn.usage),
    )
    if change.kind == ChangeKind.COMPACTION and prev is not None:
        history = prev.items
        if prev.items and (
            prev.items[-1].kind == COMPACTION_TRIGGER or prev.request_kind == RequestKind.COMPACTION
        ):
            # The compaction request appended its prompt (or Codex's trigger) to the history; that
            # is not history (the request's note counts the same items as sent to be summarised).
            history = prev.items[:-1]
        result.compaction = compaction_report(history, prev, turn, change.kept)
    result.notes = _notes(turn, change, unknown)
    # The plan protocol is the request's own: its tools[] and collaboration mode (mode_events.py).
    added = change.added if carry is not None else turn.items
    submit_tool = submission_tool(tool_name(t) for t in effective_tools(turn.body, in_band))
    planning = request_mode(added, carry.mode if carry else None) == "plan"
    result.answer = turn_answer(turn, plan_blocks=submit_tool is None and planning)
    # Only what this turn brought: a fork or a compaction does not submit its shared history again,
    # and a thread's first request (a resumed session) sets the mode without switching it.
    names = call_names(change.added, carry.names) if carry and appended else call_names(turn.items)
    events, mode, revisions = mode_events(
        added,
        turn.items,
        carry.mode if carry else None,
        carry.revisions if carry else 0,
        names=names,
        # A compaction request's answer is a summary: a plan quoted in it is not a new submission.
        answer=None if turn.request_kind in COMPACTION_REQUEST_KINDS else result.answer,
        initial=carry is None,
        submit_tool=submit_tool,
    )
    # The model's own goal call belongs to the turn whose answer made it (as a plan submission does).
    told = goal_events(result.state_changes)
    goals = goal_events_by_answer(told, change.added if carry is not None else [], result.answer)
    result.goal_echoes = goal_echoes(told, change.added if carry is not None else [])
    if turn.side is None:
        # A side request (a title, a prewarm) is no step of the conversation: a `<proposed_plan>` in
        # a title's answer or the goal its copied context carries is nothing plan mode or the goal did.
        result.mode_events, result.goal_events = events, goals
    return result, _Carry(turn, items_state, state, totals, unknown, mode, revisions, names, in_band)


class IncrementalAnalysis(Grouper):
    """The analysis: `add(exchange)` takes one exchange at a time, `result()` is the analysis of all
    so far. A batch analysis is this fold over a recording's exchanges (`analyse_exchanges`), and
    `ctxscope inspect --follow` feeds it as a recording grows, so every view reads one result.

    Turns and threads are re-derived from all exchanges on `result()` (cheap: no classification);
    items are classified once per exchange, and a turn is analysed once, continuing its thread
    from the carry the previous turn left. Should a new exchange renumber the turns or move a
    turn to another thread, everything is analysed again, so the result always equals a single
    pass over the same exchanges.
    """

    def __init__(self, *, source: str = "", header: RecordingHeader | None = None) -> None:
        super().__init__(source=source, header=header)
        self._results: dict[int, TurnAnalysis] = {}
        self._carries: dict[int, _Carry] = {}
        self._placed: dict[int, tuple[int, str, str | None]] = {}
        """Turn number → (exchange id, thread name, `beside`) when it was analysed. A side request
        made before the first conversation turn is placed beside a thread only once that turn arrives."""
        self._result: Analysis | None = None
        self._cache = CacheModel()
        self._cached = 0
        """How many turns, in request order, the cache model has seen."""

    def add(self, exchange: Exchange) -> None:
        """Take one more exchange of the recording."""
        super().add(exchange)
        self._result = None

    def extend(self, exchanges: Iterable[Exchange], *, warnings: Iterable[str] = ()) -> Analysis:
        """Take newly read exchanges (and the reader's warnings so far); the analysis of everything."""
        for exchange in exchanges:
            self.add(exchange)
        warnings = list(warnings)
        if warnings != self.warnings:
            self.warnings, self._result = warnings, None
        return self.result()

    def result(self) -> Analysis:
        """The analysis of every exchange taken so far."""
        if self._result is None:
            self._result = self._analyse()
        return self._result

    def _analyse(self) -> Analysis:
        grouping = self.grouping()
        turns, threads = grouping.turns, grouping.threads
        if any(self._placed.get(t.number, _placement(t)) != _placement(t) for t in turns):
            self._results.clear()
            self._carries.clear()
            self._placed.clear()
            self._cache, self._cached = CacheModel(), 0
        # Threads in order of their first turn, so a fork's source is always done first.
        for thread in threads:
            for index, turn in enumerate(thread.turns):
                if turn.number not in self._results:
                    self._step(thread, index, turn)
        ordered = [self._results[t.number] for t in turns]
        # The cache is one model over every request in request order (across threads: a prewarm
        # warms the cache of its key for the turn after it), so it runs once the turns are analysed.
        for result in ordered[self._cached :]:
            result.cache = self._cache.entry(result)
            result.tokens.shared_prefix = result.cache.best_prefix
            result.tokens.predicted_cached = result.cache.predicted_cached
        self._cached = len(ordered)
        warnings = [*self.warnings, *grouping.skipped]
        return Analysis(
            self.source,
            self.header,
            ordered,
            threads,
            warnings,
            side_requests=grouping.side_requests,
            other_requests=other_requests(self.exchanges, len(turns)),
        )

    def _step(self, thread: Thread, index: int, turn: Turn) -> None:
        """Analyse the `index`-th turn of `thread` against the carries of the turns before it."""
        source = self._carries.get(thread.forked_from) if thread.forked_from is not None else None
        if index == 0:
            carry, before = source, None
        else:
            carry = self._carries[thread.turns[index - 1].number]
            before = self._carries[thread.turns[index - 2].number] if index >= 2 else source
        fork = index == 0 and thread.forked_from is not None
        if thread.side is not None:
            # Side requests are not steps of one conversation: each is told on its own, never as a
            # rewrite of the one before.
            carry = before = None
            fork = False
        result, next_carry = _analyse_turn(turn, carry, fork, before)
        self._results[turn.number] = result
        self._carries[turn.number] = next_carry
        self._placed[turn.number] = _placement(turn)


def _placement(turn: Turn) -> tuple[int, str, str | None]:
    """Where the grouping put a turn: its analysis is redone when this changes."""
    return turn.exchange.id, turn.thread, turn.beside


def analyse_exchanges(
    exchanges: list[Exchange],
    *,
    source: str = "",
    header: RecordingHeader | None = None,
    warnings: list[str] | None = None,
) -> Analysis:
    """Analyse exchanges (from a recording, or built by hand in tests): the fold of `add`."""
    analysis = IncrementalAnalysis(source=source, header=header)
    return analysis.extend(exchanges, warnings=warnings or ())


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while it runs, and what it made left out of later collections.

    Reading and analysing make long-lived, acyclic data (the bodies, the classified items: lists as
    long as each turn's input) and no garbage cycles. Each full collection walks all of it, and the
    collector runs one every time the objects made grow by a quarter, so over a long recording it
    would cost turns² × items; once re-enabled, its first collections would walk it all again, young
    generation by generation. So what was made goes straight to the oldest generation (`gc.freeze`
    then `gc.unfreeze`, two list moves): it is walked again only when that generation has grown by
    a quarter, and garbage cycles in it stay collectable (a long-running TUI or test run analyses
    many recordings).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()


def analyse_recording(path: Path | str, *, shared_inputs: bool = False) -> Analysis:
    """Read and analyse a recording file; `RecordingError` (one line) when it is not one.
    `shared_inputs`: the turns' bodies hold `SharedInput`s (see `read_recording`), for a command
    that reports on the analysis and hands no body on."""
    with _without_cycle_collection():
        recording = read_recording(path, shared_inputs=shared_inputs)
        return analyse_exchanges(
            recording.exchanges, source=str(path), header=recording.header, warnings=list(recording.warnings)
        )


__all__ = [
    "Analysis",
    "Grouping",
    "IncrementalAnalysis",
    "RecordingError",
    "TurnAnalysis",
    "analyse_exchanges",
    "analyse_recording",
    "is_handshake",
    "other_requests",
]

"""Grouping turns into threads (conversations) and finding forks.

Evidence, strongest first: a resolved `previous_response_id` chain; an explicit id (session/thread
headers, `client_metadata`, `prompt_cache_key`); otherwise the longest shared prefix of items with
the latest turn of an existing thread. A new thread whose opening items repeat another thread's
conversation is a fork of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ctxscope.inspector.analysis.changes import carries_compaction, is_fork_shape
from ctxscope.inspector.analysis.turns import Turn
from ctxscope.proxy.responses.vocabulary import COMPACTION_REQUEST_KINDS


@dataclass
class Thread:
    """The turns of one conversation, in order."""

    name: str
    """Short stable name in the report: `T1`, `T2`, ..."""
    hint: str | None
    turns: list[Turn] = field(default_factory=list)
    forked_from: int | None = None
    """Turn number this thread was forked from, if it was."""
    side: str | None = None
    """For the thread collecting side requests of one kind (`thread_title`): that kind."""


def _shared_prefix(a: Turn, b: Turn) -> int:
    """How many leading items (by key) two turns share, without building key lists.

    Items of turns in one recording are mostly the very same objects, so the whole-prefix check
    is one C-level comparison; otherwise keys are compared only up to where the inputs diverge.
    """
    limit = min(len(a.items), len(b.items))
    if a.items[:limit] == b.items[:limit]:  # equal items have equal keys
        return limit
    kept = 0
    while kept < limit and a.items[kept].key == b.items[kept].key:
        kept += 1
    return kept


def _shares_conversation(a: Turn, b: Turn, kept: int) -> bool:
    return any(item.is_conversation for item in a.items[:kept]) and kept <= len(b.items)


def _fork_source(turn: Turn, earlier: list[Turn]) -> Turn | None:
    """The earlier turn this one branches from, if it repeats conversation.

    Preferred: the latest turn whose whole input this one starts with (it continued that request);
    otherwise the turn sharing the longest prefix.
    """
    best: tuple[bool, int, int] = (False, 0, -1)
    for index, other in enumerate(earlier):
        kept = _shared_prefix(other, turn)
        if not kept or not _shares_conversation(other, turn, kept):
            continue
        whole = kept == len(other.items)
        score = (whole, index if whole else kept, index)
        if score >= best:
            best = score
    return earlier[best[2]] if best[2] >= 0 else None


def assign_threads(turns: list[Turn]) -> list[Thread]:
    """Put every turn in a thread (sets `turn.thread`); returns threads in order of first turn."""
    threads: list[Thread] = []
    by_hint: dict[str, Thread] = {}
    by_turn: dict[int, Thread] = {}
    by_response: dict[str, Thread] = {}

    def new_thread(turn: Turn, forked_from: Turn | None) -> Thread:
        number = sum(1 for t in threads if t.side is None) + 1  # side threads count as S1, S2, ...
        forked = forked_from.number if forked_from else None
        thread = Thread(f"T{number}", turn.thread_hint, forked_from=forked)
        threads.append(thread)
        if turn.thread_hint:
            by_hint[turn.thread_hint] = thread
        return thread

    sides: dict[str, Thread] = {}
    done: list[Turn] = []
    for turn in turns:
        if turn.side is not None:
            # Side requests (a session title) each come on a thread id of their own: one thread per
            # kind collects them, so they fold instead of each opening a new conversation.
            side = sides.get(turn.side)
            if side is None:
                side = sides[turn.side] = Thread(f"S{len(sides) + 1}", None, side=turn.side)
                threads.append(side)
            side.turns.append(turn)
            turn.thread = side.name
            continue
        thread: Thread | None = None
        if turn.previous_response_id and turn.chain_resolved:
            thread = by_response.get(turn.previous_response_id)
        if thread is None and turn.thread_hint:
            thread = by_hint.get(turn.thread_hint)
            if thread is None:
                thread = new_thread(turn, _fork_source(turn, done))
        if thread is None:
            thread = _by_prefix(turn, threads, done, new_thread)
        thread.turns.append(turn)
        turn.thread = thread.name
        by_turn[turn.number] = thread
        if turn.response_id:
            by_response[turn.response_id] = thread
        done.append(turn)
    _place_side_requests(turns)
    return threads


def _place_side_requests(turns: list[Turn]) -> None:
    """Each side request belongs to the conversation it was made beside: the thread of the latest
    conversation turn before it, else (a title asked for while the first turn runs) the first one."""
    conversation = [t for t in turns if t.side is None]
    latest: str | None = None
    for turn in turns:
        if turn.side is None:
            latest = turn.thread
        else:
            turn.beside = latest or (conversation[0].thread if conversation else None)


def _by_prefix(
    turn: Turn, threads: list[Thread], done: list[Turn], make: Callable[[Turn, Turn | None], Thread]
) -> Thread:
    """Without ids: join the thread whose latest turn this one extends or rewrites, else fork/new."""
    best: tuple[int, Thread | None] = (0, None)
    for thread in threads:
        if thread.hint is not None or thread.side is not None:
            continue
        latest = thread.turns[-1]
        kept = _shared_prefix(latest, turn)
        if kept == len(latest.items):  # this turn extends the thread's latest turn
            return thread
        if kept > best[0] and _shares_conversation(latest, turn, kept):
            best = (kept, thread)
    kept, chosen = best
    if chosen is not None:
        if is_fork_shape(chosen.turns[-1].items, turn.items, kept):
            source = _fork_source(turn, [t for t in done if t.thread == chosen.name])
            return make(turn, source)
        return chosen
    if carries_compaction(turn.items, set()):
        # A compacted history need not share a prefix: it continues the thread that asked for it.
        open_threads = [t for t in threads if t.hint is None and t.side is None]
        asked = [t for t in open_threads if t.turns[-1].request_kind in COMPACTION_REQUEST_KINDS]
        if asked or open_threads:
            return (asked or open_threads)[-1]
    return make(turn, _fork_source(turn, done))

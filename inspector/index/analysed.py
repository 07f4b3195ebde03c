"""The recordings to index, analysed into their rows: in this process for a few, in worker processes
(one per CPU this process may use) for many.

The analysis and the rows are all the per-turn Python work of a cold index and each recording's are
its own, so on a machine with more than one core the files are shared out: each worker analyses a
chunk of files (small ones go together) and sends their rows back (tuples of plain values), while this
process writes them. Results come back in the order the files were given, so what is indexed, skipped
or reported does not depend on which worker was faster; at most a few chunks per worker are in
flight, so memory stays bounded. Workers are started fresh (`spawn`), never forked: the process asking
already holds DuckDB's threads. If the pool cannot be made or breaks (a worker killed), this process
says so in one line and analyses the rest itself.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ctxscope.proxy.errors import CtxscopeError

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from ctxscope.inspector.index.files import FileFacts
    from ctxscope.inspector.index.rows import Rows

__all__ = ["Analysed", "analysed", "default_jobs"]

POOL_MIN_FILES = 16
"""Fewer files than this are analysed here: starting a worker (a fresh interpreter importing the
analysis, about 0.4 s of CPU) costs more than it saves."""
_IN_FLIGHT_PER_WORKER = 4
"""Chunks handed to each worker ahead of what this process has taken back."""
_CHUNK_BYTES = 256 << 10
"""Small files go to a worker together, up to this many bytes of recording a chunk: each hand-over costs
this process about a millisecond (pickling, two helper threads waking), as much as analysing a
10 KB recording."""
_CHUNK_FILES = 64


@dataclass(frozen=True)
class Analysed:
    """One file's outcome: its rows, or the one line saying why it was skipped."""

    facts: FileFacts
    rows: Rows | None
    skipped: str | None = None


def default_jobs() -> int:
    """The CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _skip_line(path: Path, err: Exception) -> str:
    line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return f"skipped {path}: {line}"


def analyse_file(facts: FileFacts, with_text: bool) -> Analysed:
    """Analyse one recording into its rows; a damaged or foreign file gives its skip line instead."""
    from ctxscope.inspector.analysis.analyse import analyse_recording
    from ctxscope.inspector.index.rows import recording_rows

    path = Path(facts.path)
    try:
        analysis = analyse_recording(path, shared_inputs=True)
    except (CtxscopeError, ValueError, OSError) as err:
        return Analysed(facts, None, _skip_line(path, err))
    return Analysed(facts, recording_rows(analysis, facts, with_text=with_text))


def _pool(workers: int, give_up: Callable[[BaseException, str], None]) -> ProcessPoolExecutor | None:
    """`workers` fresh processes, or None (said through `give_up`) where none can be made."""
    # imported only for a pool: concurrent.futures and multiprocessing (with logging) are about 30 ms of
    # start-up that re-indexing one appended recording would pay for nothing
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker)
    except (OSError, ImportError) as err:  # no working semaphores here (no /dev/shm, some sandboxes)
        give_up(err, "could not start")
        return None


def analyse_files(chunk: list[FileFacts], with_text: bool) -> list[Analysed]:
    return [analyse_file(facts, with_text) for facts in chunk]


def _chunks(files: Iterable[FileFacts]) -> Iterator[list[FileFacts]]:
    """`files` in order, in runs of up to `_CHUNK_BYTES` (a larger file alone) and `_CHUNK_FILES`."""
    chunk: list[FileFacts] = []
    size = 0
    for facts in files:
        if chunk and (size + facts.size > _CHUNK_BYTES or len(chunk) >= _CHUNK_FILES):
            yield chunk
            chunk, size = [], 0
        chunk.append(facts)
        size += facts.size
    if chunk:
        yield chunk


def _start_worker() -> None:
    # A worker ends with os._exit, which runs no atexit hook: the token counts it learnt are saved by
    # multiprocessing's own exit finalizers instead (run when the pool is shut down in order).
    from multiprocessing.util import Finalize

    from ctxscope.inspector.analysis.tokens import save_token_counts

    Finalize(None, save_token_counts, exitpriority=10)


def _say(line: str) -> None:
    print(line, file=sys.stderr)


def analysed(
    files: Iterable[FileFacts],
    *,
    with_text: bool,
    jobs: int | None = None,
    notice: Callable[[str], None] | None = None,
) -> Iterator[Analysed]:
    """Each of `files` analysed, in the order given, by `jobs` processes (default: `default_jobs()`).

    `files` is read as the work goes: the workers start on the first files while the caller is still
    finding the rest (hashing them, for the index). `notice` gets the one line said when the workers
    cannot start or stop (default: printed to stderr)."""
    todo = iter(files)
    first = list(itertools.islice(todo, POOL_MIN_FILES))
    workers = jobs or default_jobs()
    pool = None
    broken = False

    def give_up(err: BaseException, what: str = "stopped") -> None:
        nonlocal broken
        broken = True
        (notice or _say)(
            f"ctxscope: the index's worker processes {what} ({str(err).rstrip('.')}); "
            "the rest is analysed in this process"
        )

    if workers > 1 and len(first) >= POOL_MIN_FILES:
        pool = _pool(workers, give_up)
    if pool is None:
        for facts in itertools.chain(first, todo):
            yield analyse_file(facts, with_text)
        return
    from concurrent.futures.process import BrokenProcessPool

    pending: deque[tuple[list[FileFacts], Future[list[Analysed]] | None]] = deque()
    """Chunks in the files' order, each with its worker's future (None: analysed here, the pool broke)."""

    def take(chunk: list[FileFacts], future: Future[list[Analysed]] | None) -> list[Analysed]:
        if future is not None:
            try:
                return future.result()  # one that finished before the pool broke still counts
            except BrokenProcessPool as err:  # a worker killed (out of memory), or it could not start
                if not broken:
                    give_up(err)
        return analyse_files(chunk, with_text)

    with pool:
        try:
            for chunk in _chunks(itertools.chain(first, todo)):
                future = None
                if not broken:
                    try:
                        future = pool.submit(analyse_files, chunk, with_text)
                    except BrokenProcessPool as err:
                        give_up(err)
                pending.append((chunk, future))
                while pending and (broken or len(pending) >= workers * _IN_FLIGHT_PER_WORKER):
                    yield from take(*pending.popleft())
            while pending:
                yield from take(*pending.popleft())
        finally:
            for _, left in pending:  # stopped early (an error, Ctrl-C): what was not started never is
                if left is not None:
                    left.cancel()

"""Opening recordings for the inspector: read, analyse, and find the newest one in the ctxscope home.

Runs in a worker thread (nothing here touches the UI); every failure is a one-line `CtxscopeError`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ctxscope.inspector.analysis.analyse import Analysis, IncrementalAnalysis, analyse_exchanges
from ctxscope.inspector.analysis.cache import CacheTurn
from ctxscope.inspector.live import LiveFeed, LiveUpdate
from ctxscope.proxy.errors import ConfigError, RecordingError
from ctxscope.proxy.home import recordings_dir
from ctxscope.proxy.store import read_recording
from ctxscope.proxy.store.embedded import is_html


@dataclass(frozen=True)
class Loaded:
    """A recording analysed, and how many of its requests are not model turns."""

    analysis: Analysis
    other_requests: int
    pending: int = 0
    """Requests read but not analysed yet (a first stage of `load_in_stages`)."""
    cache: Mapping[int, CacheTurn] | None = None
    """`cache_report` by turn, where it came with the analysis (the live feed's); else the screen
    computes it after the first draw."""


def load(path: Path) -> Loaded:
    """Read and analyse `path`; `RecordingError` when it is not a recording or has no model turns."""
    if not path.exists():
        raise RecordingError(f"{path}: no such file")
    recording = read_recording(path)
    analysis = analyse_exchanges(
        recording.exchanges, source=path.name, header=recording.header, warnings=list(recording.warnings)
    )
    return Loaded(analysis, analysis.other_requests)


FIRST_STAGE = 20
"""Requests analysed before the app draws the first turns (the rest follows in the same worker, in
parts that double: `LiveFeed.catch_up`)."""


def load_in_stages(path: Path, first: int | None = None) -> Iterator[Loaded]:
    """Analyse `path` in stages: the analysis of its first `first` requests (so the timeline is
    drawn at once, whatever the file's size), then of more and more, each with how many requests
    are still to come, the last of all (`pending` 0); one stage for a short recording.

    The file is read as the live feed reads a growing one (`LiveFeed.read` with a limit, then
    `catch_up`): memory-mapped, line by line, never read or decoded ahead of the stage being
    analysed. The analysis is incremental, so the last stage equals `load`'s."""
    if not path.exists():
        raise RecordingError(f"{path}: no such file")
    first = FIRST_STAGE if first is None else first
    if _is_report(path):
        yield from _report_in_stages(path, first)
        return
    feed = LiveFeed(path)
    update = feed.read(first, cache=False, count=False)
    # a recording may open with requests that are no turns (a models list): read on to a turn
    while update is not None and not update.analysis.turns and update.pending:
        update = feed.read(first, cache=False, count=False) or update
    if update is not None and update.pending:
        yield live_loaded(update)
    for update in feed.catch_up(first, cache=False):
        yield Loaded(update.analysis, update.other_requests, pending=update.pending)


def _is_report(path: Path) -> bool:
    """An HTML report that embeds its recording (read whole: it is one compressed blob)."""
    with path.open("rb") as stream:
        return is_html(stream.read(64))


def _report_in_stages(path: Path, first: int) -> Iterator[Loaded]:
    recording = read_recording(path)
    exchanges = recording.exchanges
    incremental = IncrementalAnalysis(source=path.name, header=recording.header)
    warnings = list(recording.warnings)
    if len(exchanges) > first:
        early = incremental.extend(exchanges[:first], warnings=warnings)
        if early.turns:
            yield Loaded(early, early.other_requests, pending=len(exchanges) - first)
    rest = exchanges[first:] if len(exchanges) > first else exchanges
    analysis = incremental.extend(rest, warnings=warnings)
    yield Loaded(analysis, analysis.other_requests)


def live_loaded(update: LiveUpdate) -> Loaded:
    """A live feed's update as the screen's `Loaded` (its cache forensics included, where it has them)."""
    return Loaded(update.analysis, update.other_requests, update.pending, cache=update.cache or None)


def newest_recording(folder: Path | None = None) -> Path:
    """The most recently modified `.jsonl` in the ctxscope home's recordings (or `folder`)."""
    where = folder or recordings_dir()
    candidates = sorted(where.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    if not candidates:
        raise ConfigError(f"no recordings in {where}: pass a recording file, or capture one first")
    return candidates[-1]


__all__ = ["FIRST_STAGE", "Loaded", "live_loaded", "load", "load_in_stages", "newest_recording"]

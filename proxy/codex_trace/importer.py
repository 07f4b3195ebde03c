"""`ctxscope import codex-trace`: bundles in, one redacted ctxscope recording out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store.writer import RecordingWriter
from .bundle import TraceError, find_bundles, read_bundle
from .exchanges import TRACE_MODE, bundle_exchanges

__all__ = ["ImportResult", "import_traces", "read_traces"]


@dataclass
class ImportResult:
    """What an import wrote and what it could not read (one line each)."""

    out: Path | None
    bundles: int = 0
    inferences: int = 0
    compactions: int = 0
    tool_runs: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class TraceRead:
    exchanges: list[Any]
    sessions: list[dict[str, Any]]
    bundles: int
    problems: list[str]


def read_traces(paths: list[Path]) -> TraceRead:
    """Every bundle under `paths`, as exchanges in the order their inferences started (ids from 0)."""
    found, problems = find_bundles(paths)
    exchanges: list[Any] = []
    sessions: list[dict[str, Any]] = []
    read = 0
    for path in found:
        try:
            bundle = read_bundle(path)
        except TraceError as err:
            problems.append(str(err))
            continue
        result = bundle_exchanges(bundle)
        problems.extend(bundle.problems)
        exchanges.extend(result.exchanges)
        sessions.extend(result.sessions)
        read += 1
    exchanges.sort(key=lambda e: e.started_at)
    for number, exchange in enumerate(exchanges):
        exchange.id = number
    return TraceRead(exchanges, sessions, read, problems)


def import_traces(paths: list[Path], out: Path) -> ImportResult:
    """Write the inferences of the bundles under `paths` to the recording `out` (redacted by its writer)."""
    read = read_traces(paths)
    result = ImportResult(None, read.bundles, problems=read.problems)
    if not read.exchanges:
        return result
    first = read.sessions[0] if read.sessions else {}
    meta: dict[str, Any] = {"mode": TRACE_MODE, "codex_sessions": read.sessions}
    if first.get("cwd"):
        meta["cwd"] = first["cwd"]
    with RecordingWriter(out, meta=meta) as writer:
        for exchange in read.exchanges:
            exchange.id = writer.next_id()
            writer.write(exchange)
            if exchange.meta["codex_trace"].get("kind") == "compaction":
                result.compactions += 1
            else:
                result.inferences += 1
            result.tool_runs += len(exchange.meta["codex_trace"].get("tool_runs", {}))
    result.out = out
    return result

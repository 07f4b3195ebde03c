"""`ctxscope import codex-trace PATH… [-o REC]`: a Codex session recorded with no proxy at all.

Codex writes its own trace of a session when `CODEX_ROLLOUT_TRACE_ROOT` is set (docs/codex-trace.md).
This turns one bundle, a directory of bundles, or several into one recording (one exchange per
inference, redacted by the recording writer) that every view reads. Whatever cannot be read is one line
on stderr, and the rest is imported. `ctxscope verify REC TRACE` holds a recording against the trace of
the same session (`ctxscope.proxy.codex_trace.verify`).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ctxscope.proxy.errors import ConfigError

__all__ = ["import_codex_trace", "register", "verify_trace"]


class Source(StrEnum):
    """What an import reads (one kind so far)."""

    codex_trace = "codex-trace"


def import_codex_trace(
    source: Annotated[Source, typer.Argument(help="What PATH holds: codex-trace (CODEX_ROLLOUT_TRACE_ROOT bundles).")],
    paths: Annotated[list[Path], typer.Argument(help="Trace bundles (trace-… directories) or directories of them.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="The recording to write (appended to if it exists).")] = Path(
        "codex-trace.jsonl"
    ),
) -> None:
    """Import Codex's own rollout trace (CODEX_ROLLOUT_TRACE_ROOT) as a ctxscope recording."""
    from ctxscope.proxy.codex_trace import import_traces

    result = import_traces(paths, out)
    for line in result.problems:
        print(f"warning: {line}", file=sys.stderr)
    if result.out is None:
        raise ConfigError(f"no inference could be read from {', '.join(str(p) for p in paths)}: nothing written")
    compactions = f" and {result.compactions} compaction(s)" if result.compactions else ""
    print(
        f"ctxscope import: {result.inferences} inference(s){compactions} from {result.bundles} bundle(s), "
        f"{result.tool_runs} tool run(s) -> {result.out}",
        file=sys.stderr,
    )


def verify_trace(
    recording: Annotated[Path, typer.Argument(help="A recording of the session (e.g. from ctxscope run).")],
    traces: Annotated[
        list[Path], typer.Argument(help="Codex's trace of the same session: bundles or their directory.")
    ],
) -> None:
    """Hold a recording against Codex's own trace of the same session, request by request."""
    from ctxscope.proxy.codex_trace import read_traces
    from ctxscope.proxy.codex_trace.verify import verify_exchanges
    from ctxscope.proxy.store.reader import read_recording

    read = read_traces(traces)
    for line in read.problems:
        print(f"warning: {line}", file=sys.stderr)
    agreement = verify_exchanges(read_recording(recording).exchanges, read.exchanges)
    print(f"{agreement.line()} (recording: {agreement.forms['wire']} bodies, trace: {agreement.forms['trace']})")
    if not agreement.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("import")(import_codex_trace)
    app.command("verify")(verify_trace)

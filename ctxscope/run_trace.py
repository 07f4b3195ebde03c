"""`ctxscope run -- codex …`: Codex's own trace of the run, held against the wire capture.

The run sets `CODEX_ROLLOUT_TRACE_ROOT` (unless the person set it) to a private directory (0700), so
Codex writes its own account of the session (docs/codex-trace.md). When the command exits the bundles
are read in memory and held against the recording (`ctxscope.proxy.codex_trace.verify`): the summary
says `Codex's own trace agrees on N of N requests`, or names the first request and JSON path where
they differ. A bundle holds unredacted tool output and credentials, so nothing of it is written: the
directory is deleted once checked, unless `--keep-trace DIR` asked to keep it there.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ctxscope.codex_daemon import codex_position

__all__ = ["TRACE_VARIABLE", "TraceWitness"]

TRACE_VARIABLE = "CODEX_ROLLOUT_TRACE_ROOT"


class TraceWitness:
    """The trace directory of one run, from before the command starts until it has been checked."""

    def __init__(self, root: Path, keep: bool) -> None:
        self.root = root
        self.keep = keep

    @classmethod
    def for_command(cls, command: list[str], environ: Mapping[str, str], keep: Path | None) -> TraceWitness | None:
        """A witness for a Codex command whose environment does not choose a trace root; else None."""
        if codex_position(command) is None or environ.get(TRACE_VARIABLE):
            return None
        if keep is not None:
            keep.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(keep, 0o700)
            return cls(keep, keep=True)
        return cls(Path(tempfile.mkdtemp(prefix="ctxscope-trace-")), keep=False)  # mkdtemp: 0700

    def environment(self, env: dict[str, str]) -> dict[str, str]:
        return {**env, TRACE_VARIABLE: str(self.root)}

    def check(self, recording: Path) -> str:
        """The summary line of the cross-check; the directory is gone afterwards unless kept."""
        from ctxscope.proxy.codex_trace import read_traces
        from ctxscope.proxy.codex_trace.verify import verify_exchanges
        from ctxscope.proxy.store.reader import read_recording

        try:
            read = read_traces([self.root])
            if not read.exchanges:
                first = read.problems[0] if read.problems else "no bundle was written"
                return f"ctxscope run: Codex's own trace could not be checked: {first}"
            agreement = verify_exchanges(read_recording(recording).exchanges, read.exchanges)
            return f"ctxscope run: {agreement.line()}"
        finally:
            if not self.keep:
                shutil.rmtree(self.root, ignore_errors=True)

"""`ctxscope run -- codex …`: Codex's own trace of the run, held against the wire capture.

The run sets `CODEX_ROLLOUT_TRACE_ROOT` (unless the person set it) to a private directory (0700), so
Codex writes its own account of the session (docs/codex-trace.md). When the command exits the bundles
are read in memory and held against the recording (`ctxscope.proxy.codex_trace.verify`): the summary
says `Codex's own trace agrees on N of N requests`, or names the first request and JSON path where
they differ. A bundle holds unredacted tool output and credentials, so it is redacted in memory with
the recording's own redactor (the same secret, the same placeholder) before it is compared, and the
two must then be exactly equal; the private directory is deleted once checked, and `--keep-trace DIR`
gets a copy redacted the same way (`ctxscope.proxy.codex_trace.redacted`), never Codex's own files.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ctxscope.codex_daemon import codex_position

if TYPE_CHECKING:
    from ctxscope.proxy.redact.redactor import Redactor

__all__ = ["TRACE_VARIABLE", "TraceWitness"]

TRACE_VARIABLE = "CODEX_ROLLOUT_TRACE_ROOT"


class TraceWitness:
    """The trace directory of one run, from before the command starts until it has been checked.

    Codex writes into a private directory of the run (0700); `--keep-trace DIR` gets a redacted copy.
    """

    def __init__(self, root: Path, keep: Path | None) -> None:
        self.root = root
        self.keep = keep

    @classmethod
    def for_command(cls, command: list[str], environ: Mapping[str, str], keep: Path | None) -> TraceWitness | None:
        """A witness for a Codex command whose environment does not choose a trace root; else None."""
        if codex_position(command) is None or environ.get(TRACE_VARIABLE):
            return None
        return cls(Path(tempfile.mkdtemp(prefix="ctxscope-trace-")), keep)  # mkdtemp: 0700

    def environment(self, env: dict[str, str]) -> dict[str, str]:
        return {**env, TRACE_VARIABLE: str(self.root)}

    def check(self, recording: Path, redactor: Redactor) -> list[str]:
        """The cross-check's lines (its summary last). The trace is redacted with `redactor` (the one
        the recording was written with) before it is compared or kept; the private directory is gone
        afterwards."""
        from ctxscope.proxy.codex_trace import find_bundles, read_traces
        from ctxscope.proxy.codex_trace.redacted import write_redacted_bundle
        from ctxscope.proxy.codex_trace.verify import verify_exchanges
        from ctxscope.proxy.store.reader import read_recording

        lines: list[str] = []
        try:
            read = read_traces([self.root])
            if read.exchanges:
                agreement = verify_exchanges(read_recording(recording).exchanges, read.exchanges, redactor)
                summary = f"ctxscope run: {agreement.line()}"
            else:
                first = read.problems[0] if read.problems else "no bundle was written"
                summary = f"ctxscope run: Codex's own trace could not be checked: {first}"
            if self.keep is not None:
                self.keep.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.chmod(self.keep, 0o700)
                for bundle in find_bundles([self.root])[0]:
                    for problem in write_redacted_bundle(bundle, self.keep / bundle.name, redactor):
                        lines.append(f"ctxscope run: warning: {problem}")
            return [*lines, summary]
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

"""Codex's own rollout trace (`CODEX_ROLLOUT_TRACE_ROOT`): read a bundle, turn it into a recording.

See docs/codex-trace.md for the format as observed with Codex 0.169.0 (schema_version 2) and 0.171.0
(schema_version 3). `bundle` reads one, `exchanges` turns its requests into exchanges (`compaction`
rebuilds a remote compaction's request as sent), `importer` writes a recording, `verify` holds one
against a recording, and `redacted` writes a bundle redacted with a recording's placeholders.
"""

from __future__ import annotations

from .bundle import SCHEMA_VERSIONS, Bundle, TraceError, find_bundles, read_bundle
from .exchanges import TRACE_MODE, bundle_exchanges
from .importer import ImportResult, import_traces, read_traces

__all__ = [
    "SCHEMA_VERSIONS",
    "TRACE_MODE",
    "Bundle",
    "ImportResult",
    "TraceError",
    "bundle_exchanges",
    "find_bundles",
    "import_traces",
    "read_bundle",
    "read_traces",
]

"""ctxscope's inspector: what each request carried, what changed between turns, and why.

`inspector.analysis` is the engine (pure functions over recordings, no UI); `inspector.reports`
turns an analysis into versioned report documents (pydantic models; `doc.wire()` is the JSON) and
renders them as text or markdown;
`inspector.cli.register` adds `diff`, `compare` and `show` to the `ctxscope` command.
"""

from __future__ import annotations

from inspector.analysis import Analysis, TurnAnalysis, analyse_exchanges, analyse_recording
from inspector.analysis.compare import Comparison, compare_analyses
from inspector.reports import SCHEMA, compare_report, diff_report, show_report

__all__ = [
    "SCHEMA",
    "Analysis",
    "Comparison",
    "TurnAnalysis",
    "analyse_exchanges",
    "analyse_recording",
    "compare_analyses",
    "compare_report",
    "diff_report",
    "show_report",
]

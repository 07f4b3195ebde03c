"""ctxscope's inspector: what each request carried, what changed between turns, and why.

`ctxscope.inspector.analysis` is the engine (pure functions over recordings, no UI); `ctxscope.inspector.reports`
turns an analysis into versioned report documents (pydantic models; `doc.wire()` is the JSON) and
renders them as text or markdown; `ctxscope.inspector.tui` is the Textual inspector (`ctxscope inspect`),
which renders what the analysis returns through a plain view model;
`ctxscope.inspector.cli.register` adds `diff`, `compare`, `show` and `inspect` to the `ctxscope` command.
"""

from __future__ import annotations

from ctxscope.inspector.analysis import Analysis, TurnAnalysis, analyse_exchanges, analyse_recording
from ctxscope.inspector.analysis.compare import Comparison, compare_analyses
from ctxscope.inspector.reports import SCHEMA, compare_report, diff_report, show_report

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

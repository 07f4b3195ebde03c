"""ctxscope's inspector: what each request carried, what changed between turns, and why.

`ctxscope.inspector.analysis` is the engine (pure functions over recordings, no UI); `ctxscope.inspector.reports`
turns an analysis into versioned report documents (pydantic models; `doc.wire()` is the JSON) and
renders them as text or markdown; `ctxscope.inspector.tui` is the Textual inspector (`ctxscope inspect`),
which renders what the analysis returns through a plain view model;
`ctxscope.inspector.cli.register` adds `diff`, `compare`, `show` and `inspect` to the `ctxscope` command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:
    from ctxscope.inspector.analysis import Analysis, TurnAnalysis, analyse_exchanges, analyse_recording
    from ctxscope.inspector.analysis.compare import Comparison, compare_analyses
    from ctxscope.inspector.reports import SCHEMA, compare_report, diff_report, show_report

_PUBLIC: dict[str, str] = {
    "SCHEMA": "ctxscope.inspector.reports",
    "Analysis": "ctxscope.inspector.analysis",
    "Comparison": "ctxscope.inspector.analysis.compare",
    "TurnAnalysis": "ctxscope.inspector.analysis",
    "analyse_exchanges": "ctxscope.inspector.analysis",
    "analyse_recording": "ctxscope.inspector.analysis",
    "compare_analyses": "ctxscope.inspector.analysis.compare",
    "compare_report": "ctxscope.inspector.reports",
    "diff_report": "ctxscope.inspector.reports",
    "show_report": "ctxscope.inspector.reports",
}
"""The public names and their modules, imported on first use (PEP 562): `ctxscope info` imports the
analysis it uses without paying for the report models, which any `ctxscope.inspector.*` import would
otherwise load through this package."""

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


__getattr__ = lazy_attributes(__name__, _PUBLIC, __all__, globals())[0]

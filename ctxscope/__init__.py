"""ctxscope: see exactly what a coding-agent harness sends to the model, and why it changed.

This package is only the command line that joins the three parts: `proxy` (capture, replay, the
recording file), `harness` (the agent) and `inspector` (analysis and reports), plus `demo`, the one
workflow that runs all three in a row.
"""

from __future__ import annotations

__all__: list[str] = []

"""pytest plugin for ctxscope cassettes (replay of recordings and script cassettes in tests).

Placeholder while the replay package is built: it registers nothing yet, so that pytest can load the
entry point declared in pyproject.toml.
"""

from __future__ import annotations

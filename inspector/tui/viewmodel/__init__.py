"""The inspector's view model: plain Python between the analysis and the widgets (no Textual).

`Inspector` holds one recording's analysis and the reader's state (marked turn, filter, search,
open folds) and answers with display `Line`s; `compare` does the same for two recordings.
"""

from __future__ import annotations

from ctxscope.inspector.tui.viewmodel.lines import Line, Run
from ctxscope.inspector.tui.viewmodel.session import TRUNCATE_CHARS, VIEWS, Inspector, ItemDetail, View

__all__ = ["TRUNCATE_CHARS", "VIEWS", "Inspector", "ItemDetail", "Line", "Run", "View"]

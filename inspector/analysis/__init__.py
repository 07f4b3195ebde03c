"""The inspector's analysis engine: pure functions over recordings, no UI code.

`analyse_recording(path)` (or `analyse_exchanges(exchanges)`) returns an `Analysis`: turns in
request order, each with its classified items, change kind against the previous turn of its
thread, world state and its changes, instruction/tool/parameter diffs, token attribution and
compaction forensics. `compare_analyses(a, b)` aligns two recordings of the same task.
"""

from __future__ import annotations

from inspector.analysis.analyse import Analysis, TurnAnalysis, analyse_exchanges, analyse_recording
from inspector.analysis.attribution import TokenReport
from inspector.analysis.changes import CHANGE_KINDS, TurnChange
from inspector.analysis.compaction import CompactionReport
from inspector.analysis.diffs import ToolDiff
from inspector.analysis.items import Item, Part, classify_item
from inspector.analysis.threads import Thread
from inspector.analysis.turns import Turn

__all__ = [
    "CHANGE_KINDS",
    "Analysis",
    "CompactionReport",
    "Item",
    "Part",
    "Thread",
    "ToolDiff",
    "TokenReport",
    "Turn",
    "TurnAnalysis",
    "TurnChange",
    "analyse_exchanges",
    "analyse_recording",
    "classify_item",
]

"""The inspector's analysis engine: pure functions over recordings, no UI code.

`analyse_recording(path)` (or `analyse_exchanges(exchanges)`) returns an `Analysis`: turns in
request order, each a `TurnAnalysis` with its classified items, change kind against the previous
turn of its thread (`TurnChange`), world state and its changes, instruction/tool/parameter diffs,
token attribution and compaction forensics. `compare_analyses(a, b)` aligns two recordings of the
same task.

World state: `TurnAnalysis.state` is an `ObservedState` (the harness's `WorldState` fields, all
optional, plus the fields fragment kinds declare; read with `state.value(name)`), and
`TurnAnalysis.state_changes` is a list of `StateChange(field, before, after, replaced)` records in
field order. The analysis holds no sentences: `inspector.reports.describe_changes` words them, and
`inspector.reports.world_state_doc` gives the state under the report's published key names.
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
from inspector.analysis.world_state import ObservedState, StateChange

__all__ = [
    "CHANGE_KINDS",
    "Analysis",
    "CompactionReport",
    "Item",
    "ObservedState",
    "Part",
    "StateChange",
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

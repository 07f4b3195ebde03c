"""The inspector's analysis engine: pure functions over recordings, no UI code.

`IncrementalAnalysis` is the one analysis (`add(exchange)`, `result()`); `analyse_recording(path)`
and `analyse_exchanges(exchanges)` are its fold and return an `Analysis`: turns in request order,
each a `TurnAnalysis` with its classified items, change kind against the previous turn of its
thread (`TurnChange`), world state and its changes, goal events, instruction/tool/parameter diffs,
token attribution and compaction forensics; side requests (titles, prewarms, model lists) counted
apart. `compare_analyses(a, b)` aligns two recordings of the
same task; `structural_differences` says whether two requests have the same structure (the Codex
parity test's definition). `diff_requests(recorded, live)` names what changed in the context between
two request bodies (a rejected cassette request, an edited resend), and `answer_of` puts a
response's output in a form two answers can be compared by.

World state: `TurnAnalysis.state` is an `ObservedState` (the harness's `WorldState` fields, all
optional, plus the fields fragment kinds declare; read with `state.value(name)`), and
`TurnAnalysis.state_changes` is a list of `StateChange(field, before, after, replaced)` records in
field order. The analysis holds no sentences: `ctxscope.inspector.reports.describe_changes` words them, and
`ctxscope.inspector.reports.world_state_doc` gives the state under the report's published key names.
"""

from __future__ import annotations

from ctxscope.inspector.analysis.alignment import AlignedPair, align_turns
from ctxscope.inspector.analysis.analyse import (
    Analysis,
    IncrementalAnalysis,
    TurnAnalysis,
    analyse_exchanges,
    analyse_recording,
)
from ctxscope.inspector.analysis.answers import Answer, answer_of
from ctxscope.inspector.analysis.attribution import TokenReport
from ctxscope.inspector.analysis.changes import CHANGE_KINDS, TurnChange
from ctxscope.inspector.analysis.compaction import CompactionReport
from ctxscope.inspector.analysis.diffs import ToolDiff
from ctxscope.inspector.analysis.item_diff import ItemChange, TextDiff, diff_items, diff_text
from ctxscope.inspector.analysis.items import Item, Part, classify_item
from ctxscope.inspector.analysis.query import Hit, filter_turns, search
from ctxscope.inspector.analysis.request_diff import RequestDiff, diff_requests
from ctxscope.inspector.analysis.structure import structural_differences
from ctxscope.inspector.analysis.threads import Thread
from ctxscope.inspector.analysis.turns import Turn
from ctxscope.inspector.analysis.world_history import WorldHistory, world_history
from ctxscope.inspector.analysis.world_state import ObservedState, StateChange

__all__ = [
    "CHANGE_KINDS",
    "AlignedPair",
    "Analysis",
    "Answer",
    "CompactionReport",
    "Hit",
    "IncrementalAnalysis",
    "Item",
    "ItemChange",
    "ObservedState",
    "Part",
    "RequestDiff",
    "StateChange",
    "TextDiff",
    "Thread",
    "ToolDiff",
    "TokenReport",
    "Turn",
    "TurnAnalysis",
    "TurnChange",
    "WorldHistory",
    "align_turns",
    "analyse_exchanges",
    "analyse_recording",
    "answer_of",
    "classify_item",
    "diff_items",
    "diff_requests",
    "diff_text",
    "filter_turns",
    "search",
    "structural_differences",
    "world_history",
]

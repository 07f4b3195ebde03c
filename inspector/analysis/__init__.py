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

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:
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

_PUBLIC: dict[str, str] = {
    "AlignedPair": "ctxscope.inspector.analysis.alignment",
    "Analysis": "ctxscope.inspector.analysis.analyse",
    "Answer": "ctxscope.inspector.analysis.answers",
    "CHANGE_KINDS": "ctxscope.inspector.analysis.changes",
    "CompactionReport": "ctxscope.inspector.analysis.compaction",
    "Hit": "ctxscope.inspector.analysis.query",
    "IncrementalAnalysis": "ctxscope.inspector.analysis.analyse",
    "Item": "ctxscope.inspector.analysis.items",
    "ItemChange": "ctxscope.inspector.analysis.item_diff",
    "ObservedState": "ctxscope.inspector.analysis.world_state",
    "Part": "ctxscope.inspector.analysis.items",
    "RequestDiff": "ctxscope.inspector.analysis.request_diff",
    "StateChange": "ctxscope.inspector.analysis.world_state",
    "TextDiff": "ctxscope.inspector.analysis.item_diff",
    "Thread": "ctxscope.inspector.analysis.threads",
    "TokenReport": "ctxscope.inspector.analysis.attribution",
    "ToolDiff": "ctxscope.inspector.analysis.diffs",
    "Turn": "ctxscope.inspector.analysis.turns",
    "TurnAnalysis": "ctxscope.inspector.analysis.analyse",
    "TurnChange": "ctxscope.inspector.analysis.changes",
    "WorldHistory": "ctxscope.inspector.analysis.world_history",
    "align_turns": "ctxscope.inspector.analysis.alignment",
    "analyse_exchanges": "ctxscope.inspector.analysis.analyse",
    "analyse_recording": "ctxscope.inspector.analysis.analyse",
    "answer_of": "ctxscope.inspector.analysis.answers",
    "classify_item": "ctxscope.inspector.analysis.items",
    "diff_items": "ctxscope.inspector.analysis.item_diff",
    "diff_requests": "ctxscope.inspector.analysis.request_diff",
    "diff_text": "ctxscope.inspector.analysis.item_diff",
    "filter_turns": "ctxscope.inspector.analysis.query",
    "search": "ctxscope.inspector.analysis.query",
    "structural_differences": "ctxscope.inspector.analysis.structure",
    "world_history": "ctxscope.inspector.analysis.world_history",
}
"""The public names and their modules, imported on first use (PEP 562): a command that needs only
`IncrementalAnalysis` (`ctxscope info`) does not pay for alignment, queries and request diffs."""

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


__getattr__ = lazy_attributes(__name__, _PUBLIC, __all__, globals())[0]

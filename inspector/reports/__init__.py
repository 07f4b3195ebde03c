"""Headless reports of an analysis: one JSON document per report (schema `ctxscope-report/1`,
see docs/report-schema.md), rendered as JSON, rich text (colour or plain) or markdown.

    models     the documents as pydantic models (`DiffReport`, `ShowReport`, `CompareReport`, ...);
               `doc.wire()` is the published JSON
    build      the analysis turned into documents (`diff_report`, `show_report`, `compare_report`)
    schema     the JSON schema of the documents (`python -m ctxscope.inspector.reports.schema` writes docs/)
    world      world state under its published key names; the sentences that tell a StateChange
    text       rich terminal rendering of a document
    markdown   markdown rendering of a document

Names load on first use: the index builds its rows from `build.turn_doc` and `world.world_state_doc`
alone, and must not pay for rich and the renderers to get them (`ctxscope index` after one append).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:  # what the names resolve to, for type checkers and editors
    from ctxscope.inspector.reports.build import compare_report, diff_report, show_report
    from ctxscope.inspector.reports.markdown import render_markdown
    from ctxscope.inspector.reports.models import (
        SCHEMA,
        CompareReport,
        DiffReport,
        ItemDoc,
        PairDoc,
        ReportDoc,
        ShowReport,
        TurnDetail,
        TurnDoc,
        WorldStateDoc,
    )
    from ctxscope.inspector.reports.text import render_text
    from ctxscope.inspector.reports.world import (
        PUBLISHED_KEYS,
        describe_change,
        describe_changes,
        world_state_doc,
    )

__all__ = [
    "PUBLISHED_KEYS",
    "SCHEMA",
    "CompareReport",
    "DiffReport",
    "ItemDoc",
    "PairDoc",
    "ReportDoc",
    "ShowReport",
    "TurnDetail",
    "TurnDoc",
    "WorldStateDoc",
    "compare_report",
    "describe_change",
    "describe_changes",
    "diff_report",
    "render_markdown",
    "render_text",
    "show_report",
    "world_state_doc",
]

_WHERE = {
    "compare_report": "ctxscope.inspector.reports.build",
    "diff_report": "ctxscope.inspector.reports.build",
    "show_report": "ctxscope.inspector.reports.build",
    "render_markdown": "ctxscope.inspector.reports.markdown",
    "SCHEMA": "ctxscope.inspector.reports.models",
    "CompareReport": "ctxscope.inspector.reports.models",
    "DiffReport": "ctxscope.inspector.reports.models",
    "ItemDoc": "ctxscope.inspector.reports.models",
    "PairDoc": "ctxscope.inspector.reports.models",
    "ReportDoc": "ctxscope.inspector.reports.models",
    "ShowReport": "ctxscope.inspector.reports.models",
    "TurnDetail": "ctxscope.inspector.reports.models",
    "TurnDoc": "ctxscope.inspector.reports.models",
    "WorldStateDoc": "ctxscope.inspector.reports.models",
    "render_text": "ctxscope.inspector.reports.text",
    "PUBLISHED_KEYS": "ctxscope.inspector.reports.world",
    "describe_change": "ctxscope.inspector.reports.world",
    "describe_changes": "ctxscope.inspector.reports.world",
    "world_state_doc": "ctxscope.inspector.reports.world",
}

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__, globals())

"""Headless reports of an analysis: one JSON document per report (schema `ctxscope-report/1`,
see docs/report-schema.md), rendered as JSON, rich text (colour or plain) or markdown.

    models     the documents as pydantic models (`DiffReport`, `ShowReport`, `CompareReport`, ...);
               `doc.wire()` is the published JSON
    build      the analysis turned into documents (`diff_report`, `show_report`, `compare_report`)
    schema     the JSON schema of the documents (`python -m ctxscope.inspector.reports.schema` writes docs/)
    world      world state under its published key names; the sentences that tell a StateChange
    text       rich terminal rendering of a document
    markdown   markdown rendering of a document
"""

from __future__ import annotations

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

"""Headless reports of an analysis: one JSON document per report (schema `ctxscope-report/1`,
see docs/report-schema.md), rendered as JSON, rich text (colour or plain) or markdown."""

from __future__ import annotations

from inspector.reports.build import SCHEMA, compare_report, diff_report, show_report
from inspector.reports.markdown import render_markdown
from inspector.reports.text import render_text

__all__ = ["SCHEMA", "compare_report", "diff_report", "render_markdown", "render_text", "show_report"]

"""The self-contained HTML report (`ctxscope report`): what the TUI shows, in one file that also
carries the recording, so the same file is looked at in a browser and replayed as a cassette."""

from __future__ import annotations

from ctxscope.inspector.html.build import ReportData, report_data
from ctxscope.inspector.html.page import render_page

__all__ = ["ReportData", "render_page", "report_data"]

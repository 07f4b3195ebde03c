"""The inspector's widgets, by screen region: line panes (turn, world) and the timeline."""

from __future__ import annotations

from ctxscope.inspector.tui.widgets.lines_view import LinesView
from ctxscope.inspector.tui.widgets.render import STYLES, to_text
from ctxscope.inspector.tui.widgets.timeline import Timeline

__all__ = ["STYLES", "LinesView", "Timeline", "to_text"]

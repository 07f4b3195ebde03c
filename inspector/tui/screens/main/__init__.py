"""The main screen (one recording), split by job: `layout` picks the panes for the width, `header`
words the status line, `base` holds the screen's state and draws the timeline and the turn from it,
`loading` takes the rest of a long recording, `follow` subscribes to the live feed, `search` finds
and filters, `reading` opens, copies and exports what is under the cursor, and `screen` puts them
together with the keys."""

from __future__ import annotations

from ctxscope.inspector.tui.screens.main.follow import FOLLOW_GROUP
from ctxscope.inspector.tui.screens.main.layout import PANES, TWO_PANES, Pane
from ctxscope.inspector.tui.screens.main.screen import MainScreen

__all__ = ["FOLLOW_GROUP", "PANES", "TWO_PANES", "MainScreen", "Pane"]

"""`ctxscope inspect`: a keyboard-driven Textual inspector over recordings.

Layers, top down: `app` (routing) → `screens` (main, compare, dialogs) → `widgets` (panes, by
screen region) → `viewmodel` (plain Python, unit-tested without Textual) → `ctxscope.inspector.analysis`.
`snapshot` renders a screen headless to SVG (`ctxscope inspect FILE --snapshot OUT.svg`). Follow
mode subscribes to the live feed (`ctxscope.inspector.live`), which lives outside this package.
"""

from __future__ import annotations

from ctxscope.inspector.tui.app import InspectorApp

__all__ = ["InspectorApp"]

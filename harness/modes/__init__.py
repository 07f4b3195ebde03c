"""Collaboration modes: the objects that own everything a mode changes.

AgentMode     the protocol the loop, router and context builder read (see `base.py` for each hook)
DefaultMode   no mode behaviour; other modes subclass it
CurrentMode   the session's one holder of the active mode
EndStep       a tool outcome's verdict that ends the step and blocks the sibling calls

Names load on first use: the inspector reads plan mode's leaves (`plan.enforcement`, `plan.parser`,
`plan.texts`) to recognise what a recorded turn did, and needs none of the mode objects for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:  # what the names resolve to, for type checkers and editors
    from ctxscope.harness.modes.base import AgentMode, EndStep
    from ctxscope.harness.modes.current import CurrentMode
    from ctxscope.harness.modes.default import DEFAULT_MODE_TEXT, DefaultMode

__all__ = ["DEFAULT_MODE_TEXT", "AgentMode", "CurrentMode", "DefaultMode", "EndStep"]

_WHERE = {
    "AgentMode": "ctxscope.harness.modes.base",
    "EndStep": "ctxscope.harness.modes.base",
    "CurrentMode": "ctxscope.harness.modes.current",
    "DEFAULT_MODE_TEXT": "ctxscope.harness.modes.default",
    "DefaultMode": "ctxscope.harness.modes.default",
}

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

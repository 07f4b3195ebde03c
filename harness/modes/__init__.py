"""Collaboration modes: the objects that own everything a mode changes.

AgentMode     the protocol the loop, router and context builder read (see `base.py` for each hook)
DefaultMode   no mode behaviour; other modes subclass it
CurrentMode   the session's one holder of the active mode
EndStep       a tool outcome's verdict that ends the step and blocks the sibling calls
"""

from __future__ import annotations

from ctxscope.harness.modes.base import AgentMode, EndStep
from ctxscope.harness.modes.current import CurrentMode
from ctxscope.harness.modes.default import DEFAULT_MODE_TEXT, DefaultMode

__all__ = ["DEFAULT_MODE_TEXT", "AgentMode", "CurrentMode", "DefaultMode", "EndStep"]

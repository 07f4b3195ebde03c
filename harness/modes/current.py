"""`CurrentMode`: the one place a session's mode lives.

The agent switches it; the tool router (through the tool context) and the session context read it at
the moment they need it. Nobody keeps a copy of the mode's name, so a switch cannot leave one part of
the harness in the old mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ctxscope.harness.modes.base import AgentMode
from ctxscope.harness.modes.default import DefaultMode

if TYPE_CHECKING:
    from ctxscope.harness.tools import GateRule

__all__ = ["CurrentMode"]


class CurrentMode:
    """Holds the active `AgentMode`; reads go through to it."""

    def __init__(self, mode: AgentMode | None = None) -> None:
        self.mode: AgentMode = mode if mode is not None else DefaultMode()

    @property
    def name(self) -> str:
        return self.mode.name

    @property
    def collaboration_mode(self) -> str | None:
        return self.mode.collaboration_mode

    def fragment_text(self) -> str:
        return self.mode.fragment_text()

    def gate_rules(self) -> Sequence[GateRule]:
        return self.mode.gate_rules()

    def switch(self, mode: AgentMode) -> AgentMode:
        """Make `mode` the active one; returns the mode it replaced."""
        old, self.mode = self.mode, mode
        return old

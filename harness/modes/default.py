"""The default mode: every tool as the router's own gate allows, no mode fragment, no hooks.

Other modes subclass `DefaultMode` and override only the hooks they need.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxscope.harness.events import AgentEvent
    from ctxscope.harness.modes.base import EndStep, ModeHost
    from ctxscope.harness.tools import GateRule, ToolOutcome
    from ctxscope.harness.turn_result import TurnResult
    from ctxscope.harness.wire.types import Event

__all__ = ["DEFAULT_MODE_TEXT", "DefaultMode"]

DEFAULT_MODE_TEXT = """\
Default mode: work on the user's requests directly; read, edit and run what the task needs.
Instructions of any earlier mode no longer apply; only a later collaboration-mode message changes
the mode again. Prefer a stated, reasonable assumption to a question. Ask with `request_user_input`
only for an optional choice that would clearly improve the result, never for permission; otherwise
ask one plain question in your answer."""
"""Sent when the session returns to default behaviour from another mode, so its rules do not linger."""


@dataclass
class DefaultMode:
    """No mode behaviour. `collaboration_mode=None`: no fragment until another mode was active."""

    name: str = "default"
    collaboration_mode: str | None = None
    parallel_tool_calls: bool = True
    """Codex runs a batch of calls concurrently in Default mode; outputs still go in call order."""

    def fragment_text(self) -> str:
        return DEFAULT_MODE_TEXT

    def gate_rules(self) -> Sequence[GateRule]:
        return ()

    def on_turn_start(self, agent: ModeHost) -> None:
        return None

    def on_stream_event(self, agent: ModeHost, event: Event) -> None:
        return None

    def transform_event(self, agent: ModeHost, event: AgentEvent) -> Sequence[AgentEvent]:
        return (event,)

    def revise_outcome(self, agent: ModeHost, outcome: ToolOutcome) -> ToolOutcome:
        return outcome

    def on_tool_outcome(self, agent: ModeHost, outcome: ToolOutcome) -> EndStep | None:
        return None

    def on_turn_end(self, agent: ModeHost, result: TurnResult) -> None:
        return None

    def on_compaction(self, agent: ModeHost) -> Sequence[dict[str, Any]]:
        return ()

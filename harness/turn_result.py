"""What one turn of the loop produced (`TurnResult`) and who started it (`TurnTrigger`).

A leaf below the loop: `Agent.run_turn` returns a `TurnResult`, modes see it in `on_turn_end`, and
slash commands hand it to the front end, none of them needing the loop itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ctxscope.harness.events import TurnStop

__all__ = ["TurnResult", "TurnTrigger"]

TurnTrigger = Literal["user", "goal"]
"""Who started a turn: the person (a prompt), or the harness continuing an active goal."""


@dataclass
class TurnResult:
    """What one turn produced."""

    final_text: str
    steps: int
    stopped: TurnStop = "completed"
    """`completed`; `max_steps` when the loop hit its bound with tool calls still coming;
    `ended_by_mode` when the mode ended the step after a tool outcome."""
    usage: list[dict[str, Any]] = field(default_factory=list)

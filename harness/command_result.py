"""What a slash command asks of the front end (`CommandResult`), below the command registry.

The registry (`ctxscope.harness.commands`) lists every command; a command's handler living elsewhere (the
`/plan` command of plan mode) returns this without importing the registry that imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxscope.harness.turn_result import TurnResult

__all__ = ["CommandResult"]


@dataclass(frozen=True)
class CommandResult:
    """What a command asks of the front end."""

    quit: bool = False
    """Leave the chat (print mode ends after one command anyway)."""
    turn: TurnResult | None = None
    """The turn the command ran, if any; print mode prints its final text."""

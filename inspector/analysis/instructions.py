"""The base instructions of a turn: the `instructions` field, or, where a client sends its base
prompt as the first developer message instead (as Codex 0.169 does), that message's text.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.analysis.diffs import instructions_text
from inspector.analysis.turns import Turn


@dataclass(frozen=True)
class BaseInstructions:
    """The base prompt of a request and where it was found."""

    text: str
    source: str
    """`instructions`, `first developer message`, or `none`."""


def base_instructions(turn: Turn) -> BaseInstructions:
    """The turn's base prompt: the `instructions` field when set, else a leading plain developer
    message (not a recognised context fragment such as permissions)."""
    text = instructions_text(turn.body.get("instructions"))
    if text:
        return BaseInstructions(text, "instructions")
    first = turn.items[0] if turn.items else None
    if first is not None and first.role == "developer" and first.kind == "developer_message":
        return BaseInstructions(first.text, "first developer message")
    return BaseInstructions("", "none")


__all__ = ["BaseInstructions", "base_instructions"]

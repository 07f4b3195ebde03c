"""Where a request's base instructions are, whichever way the client sends them.

Clients send the base prompt in one of two places: the `instructions` field, or (Codex CLI 0.169
and the harness by default) as input[0], a developer message of plain text with no fragment marker.
A model switch then carries the new model's base prompt inside a `<model_switch>` fragment while
input[0] stays as it was. So the instructions in effect for a request are: the field when sent;
else the body of the latest `<model_switch>` in the input; else the base-prompt message at input[0].

`mark_base_prompt` relabels that input[0] message as the `instructions` kind, so layouts show
`developer[<instructions>]` and token attribution counts it as instructions, not as a developer
message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxscope.inspector.analysis.diffs import instructions_text
from ctxscope.inspector.analysis.items import Item, Part

if TYPE_CHECKING:  # a type only: turns reads requests through `inputs`, which reads this module
    from ctxscope.inspector.analysis.turns import Turn

__all__ = [
    "BASE_PROMPT_KIND",
    "BaseInstructions",
    "base_instructions",
    "effective_instructions",
    "is_base_prompt",
    "mark_base_prompt",
]

BASE_PROMPT_KIND = "instructions"


def is_base_prompt(item: Item) -> bool:
    """A developer message of plain text only (no recognised fragment, no image)."""
    return (
        item.type == "message"
        and item.role == "developer"
        and bool(item.parts)
        and all(p.kind == "text" for p in item.parts)
    )


def _as_instructions(item: Item) -> Item:
    parts = tuple(
        Part(p.index, p.type, BASE_PROMPT_KIND, BASE_PROMPT_KIND, p.text, {}, p.tokens) for p in item.parts
    )
    label = "developer[" + ", ".join(f"<{BASE_PROMPT_KIND}>" for _ in parts) + "]"
    return Item(
        item.position,
        item.type,
        item.role,
        BASE_PROMPT_KIND,
        label,
        item.text,
        item.tokens,
        item.key,
        parts,
        item.raw,
    )


def mark_base_prompt(items: Sequence[Item], body: dict[str, Any]) -> Sequence[Item]:
    """`items` with input[0] marked as the base prompt when the request sends no `instructions`.

    Only input[0] qualifies: it is where a window's base prompt sits (kept there across
    compactions); a plain developer message elsewhere is ordinary developer text.
    """
    if body.get("instructions") or not items or not is_base_prompt(items[0]):
        return items
    return [_as_instructions(items[0]), *items[1:]]


def effective_instructions(body: dict[str, Any], items: Sequence[Item]) -> str:
    """The base instructions in effect for a request (see the module docstring); "" when none."""
    if body.get("instructions"):
        return instructions_text(body.get("instructions"))
    for item in reversed(items):
        for part in reversed(item.parts):
            if part.kind == "model_switch" and part.values.get("instructions"):
                return str(part.values["instructions"])
    if items and items[0].kind == BASE_PROMPT_KIND:
        return items[0].text
    return ""


@dataclass(frozen=True)
class BaseInstructions:
    """The base prompt of a request and where it was found (what the TUI's instructions pane shows)."""

    text: str
    source: str
    """`instructions`, `model switch`, `first developer message`, or `none`."""


def base_instructions(turn: Turn) -> BaseInstructions:
    """The turn's base prompt and its source, by the rules of `effective_instructions`."""
    text = instructions_text(turn.body.get("instructions"))
    if text:
        return BaseInstructions(text, "instructions")
    for item in reversed(turn.items):
        for part in reversed(item.parts):
            if part.kind == "model_switch" and part.values.get("instructions"):
                return BaseInstructions(str(part.values["instructions"]), "model switch")
    first = turn.items[0] if turn.items else None
    if first is not None and (first.kind == BASE_PROMPT_KIND or is_base_prompt(first)):
        return BaseInstructions(first.text, "first developer message")
    return BaseInstructions("", "none")

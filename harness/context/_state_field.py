"""The `StateField` marker: how a world-state field reads when it changes, declared on the field.

A world-state field is declared once, as an annotated type: `Annotated[str, StateField("approval
policy")]` on `WorldState`, or in a fragment's `WorldMeaning.fields` for a value only the context
carries. The inspector compares and describes every field from this marker alone, so a new field
needs no inspector edit. The wording of each style lives with the reports; the marker only says
which style a field takes and what to call it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["ChangeStyle", "StateField"]


class ChangeStyle(StrEnum):
    """How a change of a field is told (the reports own the sentences)."""

    VALUE = "value"
    """One value replaced by another: `approval policy on-request → never`."""
    LIST = "list"
    """A list told in full before and after: `writable roots changed: /repo → /repo/pkg, /tmp`."""
    DOCUMENTS = "documents"
    """A mapping path → text, told per path: `AGENTS.md added: /repo/pkg`."""
    MEMBERS = "members"
    """A set of named members, told as a delta: `skills catalog changed: +a -b`."""
    SELECTED = "selected"
    """A growing list of choices, one sentence per new member: `skill demo selected`."""
    TEXT = "text"
    """A free text that is set or cleared: `goal set: …` / `goal cleared`."""
    HIDDEN = "hidden"
    """A long text whose change is noted, not shown: `personality changed`."""
    EVENTS = "events"
    """A log that only grows, one sentence per new entry as worded: `goal paused`, `goal
    continuation #2` (entries may repeat, so they are told by position, not by membership)."""


@dataclass(frozen=True)
class StateField:
    """Metadata of one world-state field (an `Annotated` marker pydantic keeps in `FieldInfo.metadata`).

    label:    what a person calls the field ("approval policy").
    style:    how its change is told.
    words:    for a bool field, the words for (False, True) ("restricted", "enabled").
    key:      for a MEMBERS field whose members are models, the attribute naming a member; members
              are compared and shown by that name only (a changed description is not a change).
    echo_of:  another field this one only repeats: a change to the same new value as a change of
              `echo_of` is not told twice (a model-switch notice confirming a model change).
    on_first_turn: told on the first turn of a thread too, where the rest of the state is listed as
              fragments rather than changes (what the user chose, e.g. a selected skill).
    short:    the name a narrow view gives the field (the TUI's world pane); default: `label`.
    listed:   False for a field a state pane shows through another one (the AGENTS.md documents
              in order, shown as the documents by path).
    """

    label: str
    style: ChangeStyle = ChangeStyle.VALUE
    words: tuple[str, str] | None = None
    key: str | None = None
    echo_of: str | None = None
    on_first_turn: bool = False
    short: str | None = None
    listed: bool = True

    @property
    def name(self) -> str:
        """The short name of the field (`short`, else `label`)."""
        return self.short or self.label

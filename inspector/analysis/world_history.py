"""Where each world-state value last changed: for every turn, the turn at which each value took the
value it has there, within the turn's thread (a fork continues its source's history).

A viewer shows "cwd /repo/pkg (changed at turn 12)" and jumps between the turns where the world
state changed; both facts come from the analysis's `StateChange` records, so no second vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxscope.harness.context import ChangeStyle, world_fields
from ctxscope.inspector.analysis.analyse import Analysis


@dataclass(frozen=True)
class WorldHistory:
    """Per turn (1-based index into `changed_at`): state key → the turn where it got its value."""

    changed_at: list[dict[str, int]]
    change_turns: list[int]
    """Turns (ascending) whose world state differs from the previous turn of their thread."""

    def since(self, turn: int, key: str) -> int | None:
        """The turn at which `key` took the value it has at `turn` (None when unknown)."""
        if not 1 <= turn <= len(self.changed_at):
            return None
        return self.changed_at[turn - 1].get(key)

    def next_change(self, turn: int) -> int | None:
        """The first turn after `turn` where the world state changed."""
        return next((n for n in self.change_turns if n > turn), None)

    def previous_change(self, turn: int) -> int | None:
        """The last turn before `turn` where the world state changed."""
        return next((n for n in reversed(self.change_turns) if n < turn), None)


def _is_state(name: str) -> bool:
    field = world_fields().get(name)
    return field is None or field.marker.style is not ChangeStyle.EVENTS


def world_history(analysis: Analysis) -> WorldHistory:
    """Fold the turns' `StateChange` records into "changed at" marks, thread by thread: a thread's
    first turn sets every value it has; later turns move the mark of each field they changed."""
    marks: dict[int, dict[str, int]] = {}
    changes: set[int] = set()
    by_number = {t.turn.number: t for t in analysis.turns}
    for thread in analysis.threads:
        previous: dict[str, int] | None = None
        if thread.forked_from is not None:
            previous = marks.get(thread.forked_from)
        for turn in thread.turns:
            result = by_number[turn.number]
            number = turn.number
            if previous is None:
                current = {k: number for k, v in result.state.values().items() if v is not None}
            else:
                current = dict(previous)
                for change in result.state_changes:
                    current[change.field] = number
                # A goal event (a continuation, a pause) is an event of the turn, told as its mark,
                # not a change of the world the model works in.
                if any(_is_state(change.field) for change in result.state_changes):
                    changes.add(number)
            marks[number] = current
            previous = current
    return WorldHistory([marks.get(t.turn.number, {}) for t in analysis.turns], sorted(changes))


__all__ = ["WorldHistory", "world_history"]

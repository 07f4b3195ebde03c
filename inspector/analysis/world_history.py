"""Where each world-state value last changed: for every turn, the turn at which each value took the
value it has there, within the turn's thread (a fork continues its source's history).

A viewer shows "cwd /repo/pkg (changed at turn 12)" and jumps between the turns where the world
state changed; both facts come from the turns' folded state, so no second vocabulary is needed.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.analysis.analyse import Analysis


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


def world_history(analysis: Analysis) -> WorldHistory:
    """Fold the turns' states into "changed at" marks, thread by thread."""
    by_number = {t.turn.number: t for t in analysis.turns}
    marks: dict[int, dict[str, int]] = {}
    changes: set[int] = set()
    for thread in analysis.threads:
        previous: dict[str, int] | None = None
        previous_state: dict[str, object] = {}
        if thread.forked_from is not None and thread.forked_from in marks:
            previous = marks[thread.forked_from]
            previous_state = by_number[thread.forked_from].state
        for turn in thread.turns:
            state = by_number[turn.number].state
            current: dict[str, int] = {}
            for key in set(state) | set(previous_state):
                same = previous is not None and previous_state.get(key) == state.get(key) and key in previous
                current[key] = previous[key] if same and previous is not None else turn.number
            if previous is not None and any(current[k] == turn.number for k in current):
                changes.add(turn.number)
            marks[turn.number] = current
            previous, previous_state = current, state
    return WorldHistory([marks.get(t.turn.number, {}) for t in analysis.turns], sorted(changes))


__all__ = ["WorldHistory", "world_history"]

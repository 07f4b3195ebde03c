"""Goal events of a turn: what happened to the thread goal, read from the turn's world-state changes.

The goal's fragments (a status message, the objective item, each goal turn's continuation message)
declare what they mean for the world state (`harness.context.goal_fragments`): the objective
(`goal`) and a log that only grows (`goal_events`: `paused`, `continuation #3`, ...). The analysis
reads each turn's changes of those two fields into typed events, so every view names them the same
way: goal set, continuation #N, paused, resumed, cleared, completed, blocked, budget reached.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.context.goal_fragments import GoalEventKind, goal_event_of
from inspector.analysis.world_state import StateChange

__all__ = ["GoalEvent", "GoalEventKind", "goal_events"]

_OBJECTIVE = "goal"
_LOG = "goal_events"


@dataclass(frozen=True)
class GoalEvent:
    """One thing that happened to the goal in a turn."""

    kind: GoalEventKind
    number: int | None = None
    """For a continuation: which goal turn of the thread (1, 2, ...)."""
    objective: str | None = None
    """For `set`: the objective."""


def goal_events(changes: list[StateChange]) -> list[GoalEvent]:
    """The goal events a turn's world-state changes carry, in the order the context told them."""
    events: list[GoalEvent] = []
    for change in changes:
        if change.field == _OBJECTIVE and isinstance(change.after, str) and change.after:
            events.append(GoalEvent(GoalEventKind.SET, objective=change.after))
        elif change.field == _LOG:
            old, new = list(change.before or []), list(change.after or [])
            if new[: len(old)] != old:  # a log rebuilt shorter (a compaction) is not news
                continue
            for entry in new[len(old) :]:
                kind, number = goal_event_of(str(entry))
                if kind is not None:
                    events.append(GoalEvent(kind, number))
    return events

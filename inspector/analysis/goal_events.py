"""Goal events of a turn: what happened to the thread goal, read from the turn's world-state changes.

The goal's fragments (a status message, the objective item, each goal turn's continuation message)
declare what they mean for the world state (`ctxscope.harness.context.goal_fragments`): the objective
(`goal`) and a log that only grows (`goal_events`: `paused`, `continuation #3`, ...). The analysis
reads each turn's changes of those two fields into typed events, so every view names them the same
way: goal set, continuation #N, paused, resumed, cleared, completed, blocked, budget reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxscope.harness.context.goal_fragments import GOAL_STATUS_MEANING, GoalEventKind, goal_event_of
from ctxscope.inspector.analysis.answers import Answer
from ctxscope.inspector.analysis.items import Item, goal_call_values
from ctxscope.inspector.analysis.world_state import StateChange

__all__ = ["GoalEvent", "GoalEventKind", "goal_echoes", "goal_events", "goal_events_by_answer"]

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


def _call_events(values: dict[str, object]) -> list[GoalEvent]:
    """The events one goal call means, read with the goal-status fragment's own world meaning."""
    update = GOAL_STATUS_MEANING.project(values, {})
    return goal_events([StateChange(name, None, value) for name, value in update.items()])


def goal_echoes(events: list[GoalEvent], added: Sequence[Item]) -> list[GoalEvent]:
    """The events of `events` that echo a goal call of an earlier answer (the call is in `added`, as
    history): told on the turn that made the call, so this turn's views leave them out."""
    left, out = list(events), []
    for item in added:
        values = goal_call_values(item.raw) if item.type == "function_call" else None
        for echoed in _call_events(values) if values is not None else []:
            if echoed in left:
                left.remove(echoed)
                out.append(echoed)
    return out


def goal_events_by_answer(
    events: list[GoalEvent], added: Sequence[Item], answer: Answer | None
) -> list[GoalEvent]:
    """A turn's goal events with the model's own goal changes moved to the turn that made them.

    The model's `update_goal` / `create_goal` call is in this turn's `answer`; the next request
    carries it as history, and its world state changes there. So the events of the calls in
    `added` (that echo) leave this turn, and the events of the calls in `answer` join it."""
    out = list(events)
    for echoed in goal_echoes(events, added):
        out.remove(echoed)
    for call in answer.tool_calls if answer is not None else []:
        values = goal_call_values({"type": "function_call", "name": call.name, "arguments": call.arguments})
        out += _call_events(values) if values is not None else []
    return out

"""The thread goal (`/goal`): its state and the JSON shape of the goal tools.

state    GoalState, GoalBook (the session's holder), goal_payload, parse_goal_entry
runner   the goal loop and the /goal actions (import `ctxscope.harness.goal.runner` itself: it sits
         above the agent, which this package's state sits below)
"""

from __future__ import annotations

from ctxscope.harness.goal.state import (
    GOAL_STATUSES,
    GoalBook,
    GoalState,
    GoalStatus,
    goal_payload,
    parse_goal_entry,
)

__all__ = ["GOAL_STATUSES", "GoalBook", "GoalState", "GoalStatus", "goal_payload", "parse_goal_entry"]

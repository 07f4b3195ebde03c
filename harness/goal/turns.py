"""What a goal adds to the agent's turns: the items that open a goal turn, the objective item after
a `create_goal`, the usage a goal turn spends, and the record of every change.

The agent calls these at fixed points of its loop (opening a turn with `trigger="goal"`, after each
batch of tool calls, at the end of a goal turn); `ctxscope.harness.goal.runner` decides when goal turns run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ctxscope.harness.context import message_item, render_fragment
from ctxscope.harness.context.goal_fragments import goal_objective_item
from ctxscope.harness.events import GoalUpdated
from ctxscope.proxy.errors import ConfigError

if TYPE_CHECKING:
    from ctxscope.harness.loop_host import LoopHost

__all__ = ["account_goal_turn", "goal_after_tools", "goal_turn_items", "record_goal"]


def record_goal(agent: LoopHost, reason: str) -> None:
    """Write the goal's current state to the session file and tell the front end."""
    book = agent.goals
    goal = book.current
    book.recorded = book.revision
    agent.session.append("goal", {"goal": goal.model_dump(mode="json") if goal else None})
    agent.emit(
        GoalUpdated(
            objective=goal.objective if goal else None,
            status=goal.status if goal else None,
            tokens_used=goal.tokens_used if goal else 0,
            token_budget=goal.token_budget if goal else None,
            reason=reason,
        )
    )


def goal_turn_items(agent: LoopHost) -> list[dict[str, Any]]:
    """The objective item (once per context window) and a fresh continuation message."""
    goal = agent.goals.current
    if goal is None:
        raise ConfigError("no goal is set: start one with /goal <objective>")
    items = []
    if agent.goals.objective_window != agent.window:
        # Once per window: a compaction drops it with the rest of the old history.
        items.append(goal_objective_item(goal.objective))
        agent.goals.objective_window = agent.window
    budget = {
        "tokens_used": goal.tokens_used,
        "token_budget": goal.token_budget,
        "tokens_remaining": goal.remaining_tokens,
    }
    items.append(message_item("user", [render_fragment("goal_continuation", budget)]))
    return items


def goal_after_tools(agent: LoopHost) -> None:
    """Record a goal a tool changed; a goal just created gets its objective item at once (before the
    follow-up request, as Codex sends it)."""
    book = agent.goals
    if book.revision == book.recorded:
        return
    goal = book.current
    if goal is not None and goal.status == "active" and book.objective_window is None:
        agent.append_item(goal_objective_item(goal.objective))
        book.objective_window = agent.window
    record_goal(agent, "tool")


def account_goal_turn(agent: LoopHost, usage: Sequence[dict[str, Any]], seconds: float) -> None:
    """Add a goal turn's server-reported usage to the goal; stop the goal when its budget is spent
    (no further request: the loop sees the status)."""
    tokens = sum(
        int(u.get("total_tokens") or (u.get("input_tokens") or 0) + (u.get("output_tokens") or 0))
        for u in usage
    )
    goal = agent.goals.account(tokens, seconds)
    if goal is None:
        return
    if goal.status == "active" and goal.budget_spent:
        agent.goals.set_status("budget_limited")
        agent.notice(
            f"goal budget spent: {goal.tokens_used} of {goal.token_budget} tokens used; "
            "goal turns stopped (/goal shows it, /goal resume runs past the budget)"
        )
        record_goal(agent, "budget")
    else:
        record_goal(agent, "turn")

"""The goal loop and the `/goal` actions.

`/goal <objective>` records the goal, appends the user's goal-status message (Codex's
`source="user_goal"` form) and runs goal turns at once, with no user message: each goal turn
carries the objective item (once per context window) and a fresh continuation message. The loop
goes on while the goal stays active; it stops when the model marks it complete (after the turn
that reports on it), blocked or paused, when a turn end finds the budget spent (no extra request),
after `max_goal_turns`, or on Ctrl-C (the goal is paused; `/goal resume` continues). Goal turns
never run while planning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.harness.context import message_item, render_fragment
from ctxscope.harness.goal.state import GoalState, GoalStatus
from ctxscope.harness.goal.turns import record_goal
from ctxscope.proxy.errors import ConfigError

if TYPE_CHECKING:
    from ctxscope.harness.agent import Agent, TurnResult

__all__ = [
    "check_budget",
    "clear_goal",
    "describe_goal",
    "pause_goal",
    "resume_goal",
    "run_goal",
    "run_prompt",
    "start_goal",
]


def check_budget(budget: int | None) -> int | None:
    """`budget` when it is usable; a one-line `ConfigError` otherwise."""
    if budget is not None and budget <= 0:
        raise ConfigError(
            f"a goal budget must be a positive number of tokens, not {budget}: use --budget 50000"
        )
    return budget


def _status_message(agent: Agent, status: GoalStatus, objective: str | None = None) -> None:
    values = {"objective": objective, "status": status} if objective is not None else {"status": status}
    agent.append_item(message_item("user", [render_fragment("goal_status", values)]))


def _current(agent: Agent) -> GoalState:
    goal = agent.goals.current
    if goal is None:
        raise ConfigError("no goal is set: start one with /goal <objective>")
    return goal


def start_goal(agent: Agent, objective: str, budget: int | None = None) -> GoalState:
    """Set a new active goal (replacing any other) and tell the model, without running a turn."""
    objective = objective.strip()
    if not objective:
        raise ConfigError("a goal needs an objective: /goal <objective>")
    goal = agent.goals.set(objective, check_budget(budget))
    _status_message(agent, "active", objective)
    record_goal(agent, "user")
    return goal


def pause_goal(agent: Agent, reason: str = "user") -> GoalState:
    """Pause the goal; the model hears of it with the next request."""
    if _current(agent).status != "paused":
        agent.goals.set_status("paused")
        _status_message(agent, "paused")
        record_goal(agent, reason)
    return _current(agent)


def resume_goal(agent: Agent) -> GoalState:
    """Make the goal active again (also one that was blocked, completed or out of budget)."""
    if _current(agent).status != "active":
        agent.goals.set_status("active")
        _status_message(agent, "active")
        record_goal(agent, "user")
    return _current(agent)


def clear_goal(agent: Agent) -> None:
    """Forget the goal (nothing is sent: no goal turns follow)."""
    _current(agent)
    agent.goals.clear()
    record_goal(agent, "user")


def describe_goal(agent: Agent) -> str:
    """The `/goal` panel: objective, status, tokens used, budget and time."""
    goal = agent.goals.current
    if goal is None:
        return "no goal (set one with /goal <objective> or /goal --budget N <objective>)\n"
    budget = "none" if goal.token_budget is None else f"{goal.token_budget} ({goal.remaining_tokens} left)"
    return (
        f"  objective: {goal.objective}\n  status: {goal.status}\n  tokens used: {goal.tokens_used}\n"
        f"  token budget: {budget}\n  time used: {goal.time_used_seconds:.0f}s\n"
    )


def run_goal(agent: Agent) -> TurnResult | None:
    """Run goal turns while the goal is active; the last turn's result (None if none ran)."""
    last = None
    for _ in range(agent.config.max_goal_turns):
        goal = agent.goals.current
        if goal is None or goal.status != "active":
            return last
        if agent.mode.name == "plan":
            agent.notice("goal turns do not run while planning: leave plan mode, then /goal resume")
            return last
        try:
            last = agent.run_turn(trigger="goal")
        except KeyboardInterrupt:
            pause_goal(agent, reason="interrupted")
            raise
    goal = agent.goals.current
    if goal is not None and goal.status == "active":
        agent.notice(
            f"stopped after {agent.config.max_goal_turns} goal turns (max_goal_turns); "
            "the goal is still active: /goal resume continues"
        )
    return last


def run_prompt(agent: Agent, prompt: str) -> TurnResult:
    """A user turn; when it made a goal active (`create_goal`), the goal turns that follow."""
    before = agent.goals.revision
    result = agent.run_turn(prompt)
    goal = agent.goals.current
    if agent.goals.revision != before and goal is not None and goal.status == "active":
        return run_goal(agent) or result
    return result

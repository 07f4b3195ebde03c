"""The thread goal: its typed state, the one JSON shape every goal tool returns, and its holder.

A goal is an objective the harness keeps the model working on across turns (`/goal <objective>`
or the model's `create_goal`). Its status moves between `active`, `paused`, `blocked`, `complete`
and `budget_limited` (the token budget was spent at a turn end). `tokens_used` sums the
server-reported usage of goal turns, as Codex counts it.

`goal_payload` is the JSON Codex's goal tools answer with (observed, `codex-observed.md` §5):
`{goal: {threadId, objective, status, tokenBudget?, tokensUsed, timeUsedSeconds, createdAt,
updatedAt}, remainingTokens, completionBudgetReport}`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ctxscope.proxy.errors import ConfigError

__all__ = ["GOAL_STATUSES", "GoalBook", "GoalState", "GoalStatus", "goal_payload", "parse_goal_entry"]

GoalStatus = Literal["active", "paused", "blocked", "complete", "budget_limited"]
GOAL_STATUSES: tuple[str, ...] = ("active", "paused", "blocked", "complete", "budget_limited")

_COMPLETION_REPORT = (
    "The goal is marked complete. In your final answer, tell the user what was achieved and report the "
    "goal's resource use from this result: tokens used{budget} and time spent."
)


class GoalState(BaseModel):
    """One thread goal, as stored in the session file."""

    model_config = ConfigDict(extra="forbid")

    thread_id: str
    objective: str = Field(min_length=1)
    status: GoalStatus = "active"
    token_budget: int | None = Field(default=None, gt=0)
    """None: no budget (the loop runs until the goal is complete, paused or blocked)."""
    tokens_used: int = Field(default=0, ge=0)
    time_used_seconds: float = Field(default=0.0, ge=0)
    created_at: int
    """Unix seconds."""
    updated_at: int

    @model_validator(mode="after")
    def _consistent(self) -> GoalState:
        # A goal whose fields contradict each other is refused on load, not run on a guess.
        if self.updated_at < self.created_at:
            raise ValueError(f"updated_at {self.updated_at} is before created_at {self.created_at}")
        if self.status == "budget_limited" and self.token_budget is None:
            raise ValueError("status budget_limited without a token_budget")
        return self

    @property
    def remaining_tokens(self) -> int | None:
        if self.token_budget is None:
            return None
        return max(self.token_budget - self.tokens_used, 0)

    @property
    def budget_spent(self) -> bool:
        return self.token_budget is not None and self.tokens_used >= self.token_budget


def goal_payload(goal: GoalState | None, *, completion_report: bool = False) -> str:
    """The JSON text a goal tool returns (Codex's shape; `goal` is null when no goal is set)."""
    if goal is None:
        return json.dumps({"goal": None, "remainingTokens": None, "completionBudgetReport": None})
    data: dict[str, Any] = {"threadId": goal.thread_id, "objective": goal.objective, "status": goal.status}
    if goal.token_budget is not None:
        data["tokenBudget"] = goal.token_budget
    data.update(
        tokensUsed=goal.tokens_used,
        timeUsedSeconds=round(goal.time_used_seconds),
        createdAt=goal.created_at,
        updatedAt=goal.updated_at,
    )
    report = None
    if completion_report:
        budget = f" of a {goal.token_budget}-token budget" if goal.token_budget is not None else ""
        report = _COMPLETION_REPORT.format(budget=budget)
    return json.dumps(
        {"goal": data, "remainingTokens": goal.remaining_tokens, "completionBudgetReport": report},
        ensure_ascii=False,
    )


def parse_goal_entry(payload: dict[str, Any], where: str) -> GoalState | None:
    """The goal of a session file's `goal` entry; a damaged entry is a one-line `ConfigError`."""
    raw = payload.get("goal")
    if raw is None:
        return None
    try:
        return GoalState.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "goal"
        raise ConfigError(
            f"{where} has a damaged goal entry ({field}: {first['msg']}): "
            "fix or remove that line, or start a new session"
        ) from None


@dataclass
class GoalBook:
    """The session's goal holder, shared by the goal tools (through the tool context) and the agent.

    `revision` grows with every change, so the agent can tell that a tool changed the goal and
    record it; `objective_window` is the context window whose history already carries the
    `goal_objective` item (None: not sent yet in this window)."""

    thread_id: str = ""
    current: GoalState | None = None
    revision: int = 0
    recorded: int = 0
    """The revision last written to the session file (a tool's change is recorded after its call)."""
    objective_window: int | None = None

    def set(self, objective: str, token_budget: int | None = None) -> GoalState:
        """A new active goal (replacing any earlier one)."""
        now = int(time.time())
        self.current = GoalState(
            thread_id=self.thread_id,
            objective=objective,
            token_budget=token_budget,
            created_at=now,
            updated_at=now,
        )
        self.objective_window = None
        self.revision += 1
        return self.current

    def set_status(self, status: GoalStatus) -> GoalState:
        """Change the status of the current goal (the caller checked there is one)."""
        assert self.current is not None
        self.current = self.current.model_copy(update={"status": status, "updated_at": int(time.time())})
        self.revision += 1
        return self.current

    def account(self, tokens: int, seconds: float) -> GoalState | None:
        """Add one goal turn's usage; the budget check is the caller's (it decides what to say)."""
        if self.current is None:
            return None
        self.current = self.current.model_copy(
            update={
                "tokens_used": self.current.tokens_used + max(tokens, 0),
                "time_used_seconds": self.current.time_used_seconds + max(seconds, 0.0),
                "updated_at": int(time.time()),
            }
        )
        self.revision += 1
        return self.current

    def clear(self) -> None:
        self.current = None
        self.objective_window = None
        self.revision += 1

    def restore(self, goal: GoalState | None) -> None:
        """The goal a resumed session had (no revision bump: nothing changed)."""
        self.current = goal

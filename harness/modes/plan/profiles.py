"""The plan profiles: how each seed system enters, submits and reviews; one engine underneath.

- codex (`PlanMode` itself): the plan is a `<proposed_plan>` block in the answer.
- knightcode (`KnightPlanMode`): `submit_plan` replaces the draft and ends the run (the rest of the
  batch is not run), `ask_user` asks.
- claude (`ClaudePlanMode`): `exit_plan_mode(plan)` submits and ends the run, each further planning
  turn gets a reminder, planning again after an implementation gets the re-entry reminder.

`REVIEW_CHOICES` lists what the person may do with a submitted plan, per profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxscope.harness.context import plan_mode_reminder_item
from ctxscope.harness.modes.base import EndStep
from ctxscope.harness.modes.plan.enforcement import SUBMISSION_TOOLS
from ctxscope.harness.modes.plan.mode import PlanMode, PlanOwner
from ctxscope.harness.modes.plan.texts import (
    CLAUDE_ACTIVE_REMINDER,
    CLAUDE_PLAN_TEXT,
    KNIGHT_PLAN_TEXT,
    PLAN_SUBMITTED_SIBLING,
    claude_reentry_reminder,
)

if TYPE_CHECKING:
    from ctxscope.harness.modes.base import ModeHost
    from ctxscope.harness.tools import ToolOutcome
    from ctxscope.harness.turn_result import TurnResult

__all__ = [
    "KEEPS_TYPE_AHEAD",
    "KEY_TOGGLE_PROFILES",
    "REVIEW_CHOICES",
    "ClaudePlanMode",
    "KnightPlanMode",
    "planning_mode",
]

KEY_TOGGLE_PROFILES: tuple[str, ...] = ("codex", "claude")
"""Profiles whose chat toggles plan mode with Shift+Tab (Codex, Claude Code); knightcode uses /plan."""

KEEPS_TYPE_AHEAD: frozenset[str] = frozenset({"knightcode"})
"""Profiles whose chat keeps what was typed while a turn ran, for the next prompt (KnightCode keeps
queued input); the others drop it with a one-line notice. Neither ever approves anything."""

REVIEW_CHOICES: dict[str, tuple[tuple[str, str], ...]] = {
    "codex": (
        ("implement", "implement (switch to Default mode in this session)"),
        ("fresh", "clear context and implement (a new session that reads the approved plan)"),
        ("stay", "stay in plan mode"),
    ),
    "knightcode": (
        ("implement", "Implement"),
        ("fresh", "Implement in a fresh session (the plan is its first message)"),
        ("stay", "Keep planning (optional note)"),
        ("revise", "Revise the plan (your feedback is the next planning message)"),
        ("exit", "Exit planning"),
    ),
    "claude": (
        ("implement", "approve and implement"),
        ("revise", "request changes (your feedback is the next planning message)"),
        ("exit", "reject (leave plan mode)"),
    ),
}


class _ToolSubmitted(PlanMode):
    """A profile whose plan arrives through a tool: no block parsing; the submission ends the run."""

    submit_tool = ""
    parses_blocks = False

    def on_tool_outcome(self, agent: ModeHost, outcome: ToolOutcome) -> EndStep | None:
        end = super().on_tool_outcome(agent, outcome)
        if outcome.tool == self.submit_tool and outcome.result.success:
            return EndStep(PLAN_SUBMITTED_SIBLING)
        return end

    def on_turn_end(self, agent: ModeHost, result: TurnResult) -> None:
        for problem in self._problems:
            agent.notice(problem)
        self._problems = []


@dataclass
class KnightPlanMode(_ToolSubmitted):
    profile = "knightcode"
    rules_text = KNIGHT_PLAN_TEXT
    submit_tool = SUBMISSION_TOOLS["knightcode"]


@dataclass
class ClaudePlanMode(_ToolSubmitted):
    profile = "claude"
    rules_text = CLAUDE_PLAN_TEXT
    submit_tool = SUBMISSION_TOOLS["claude"]

    _reentry_told: bool = False

    def on_turn_start(self, agent: ModeHost) -> None:
        if self._tell_reentry(agent):
            return  # the first turn of a cycle after an earlier one (also when no request left plan mode)
        # The last request already carried plan mode: this is a further planning turn.
        baseline = agent.baseline
        if baseline is not None and getattr(baseline, "collaboration_mode", None) == self.collaboration_mode:
            agent.append_item(plan_mode_reminder_item("active", CLAUDE_ACTIVE_REMINDER, role="user"))

    def on_tool_outcome(self, agent: ModeHost, outcome: ToolOutcome) -> EndStep | None:
        if outcome.tool == "enter_plan_mode" and outcome.result.success:
            self._tell_reentry(agent)  # entered mid-turn: the reminder goes before the next request
        return super().on_tool_outcome(agent, outcome)

    def _tell_reentry(self, agent: ModeHost) -> bool:
        """The re-entry reminder, once per cycle, on every cycle after an earlier one; whether sent."""
        state = self.controller.state if self.controller else None
        if self._reentry_told or state is None or state.previous is None or state.draft is None:
            return False
        self._reentry_told = True
        implemented = state.previous == "implemented"
        text = claude_reentry_reminder(state.draft, state.revision, implemented)
        event = "reentered" if implemented else "replanned"
        agent.append_item(plan_mode_reminder_item(event, text, role="user"))
        return True


def planning_mode(profile: str, controller: PlanOwner, tools: tuple[str, ...] = ()) -> PlanMode:
    """The mode object for planning under `profile`; `tools`: the session's, named in its instructions."""
    if profile == "knightcode":
        return KnightPlanMode(controller=controller, tools=tools)
    if profile == "claude":
        return ClaudePlanMode(controller=controller, tools=tools)
    return PlanMode(controller=controller, tools=tools)

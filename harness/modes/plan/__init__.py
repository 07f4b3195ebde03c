"""Plan mode: one engine (state, gate, stream parser, review) with a profile per seed system.

PlanMode              the mode while planning (gate, `<proposed_plan>` stream handling, submission)
PlanController        a session's plan state and the user's actions: enter, approve, exit
PlanState             what is saved on the session branch (revisions, assumptions, approval)
ProposedPlanParser    the streaming `<proposed_plan>` parser; `split_proposed_plan` for whole texts
"""

from __future__ import annotations

from harness.modes.plan.controller import Approval, PlanController, approved_plan_path, default_mode
from harness.modes.plan.mode import PLANNING_TOOLS, PlanMode
from harness.modes.plan.parser import (
    CLOSE_TAG,
    OPEN_TAG,
    ProposedPlanParser,
    Segment,
    SplitText,
    split_proposed_plan,
)
from harness.modes.plan.state import PLAN_PROFILES, PlanProfileName, PlanState, load_plan_state
from harness.modes.plan.texts import IMPLEMENT_PROMPT, NO_DRAFT, NO_PLAN_TO_APPROVE

__all__ = [
    "CLOSE_TAG",
    "IMPLEMENT_PROMPT",
    "NO_DRAFT",
    "NO_PLAN_TO_APPROVE",
    "OPEN_TAG",
    "PLANNING_TOOLS",
    "PLAN_PROFILES",
    "Approval",
    "PlanController",
    "PlanMode",
    "PlanProfileName",
    "PlanState",
    "ProposedPlanParser",
    "Segment",
    "SplitText",
    "approved_plan_path",
    "default_mode",
    "load_plan_state",
    "split_proposed_plan",
]

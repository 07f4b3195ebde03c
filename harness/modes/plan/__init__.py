"""Plan mode: one engine (state, gate, stream parser, review) with a profile per seed system.

PlanMode              the mode while planning (gate, `<proposed_plan>` stream handling, submission)
PlanController        a session's plan state and the user's actions: enter, approve, exit
PlanState             what is saved on the session branch (revisions, assumptions, approval)
ProposedPlanParser    the streaming `<proposed_plan>` parser; `split_proposed_plan` for whole texts

Names load on first use, so the inspector's `harness.modes.plan.parser` comes without the
controller, the tools and the agent events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proxy.lazy import lazy_attributes

if TYPE_CHECKING:  # what the names resolve to, for type checkers and editors
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

_WHERE = {
    "Approval": "harness.modes.plan.controller",
    "PlanController": "harness.modes.plan.controller",
    "approved_plan_path": "harness.modes.plan.controller",
    "default_mode": "harness.modes.plan.controller",
    "PLANNING_TOOLS": "harness.modes.plan.mode",
    "PlanMode": "harness.modes.plan.mode",
    "CLOSE_TAG": "harness.modes.plan.parser",
    "OPEN_TAG": "harness.modes.plan.parser",
    "ProposedPlanParser": "harness.modes.plan.parser",
    "Segment": "harness.modes.plan.parser",
    "SplitText": "harness.modes.plan.parser",
    "split_proposed_plan": "harness.modes.plan.parser",
    "PLAN_PROFILES": "harness.modes.plan.state",
    "PlanProfileName": "harness.modes.plan.state",
    "PlanState": "harness.modes.plan.state",
    "load_plan_state": "harness.modes.plan.state",
    "IMPLEMENT_PROMPT": "harness.modes.plan.texts",
    "NO_DRAFT": "harness.modes.plan.texts",
    "NO_PLAN_TO_APPROVE": "harness.modes.plan.texts",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

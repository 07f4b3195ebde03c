"""Plan mode: one engine (state, gate, stream parser, review) with a profile per seed system.

PlanMode              the mode while planning (gate, `<proposed_plan>` stream handling, submission)
PlanController        a session's plan state and the user's actions: enter, approve, exit
PlanState             what is saved on the session branch (revisions, assumptions, approval)
ProposedPlanParser    the streaming `<proposed_plan>` parser; `split_proposed_plan` for whole texts
enforcement           per profile: what runs, what runs unchecked (reported afterwards), what is
                      refused, rendered into the instructions; `submission_tool` for the inspector
assumptions           headless decisions carried into the submitted plan's Assumptions

Names load on first use, so the inspector's `ctxscope.harness.modes.plan.parser` comes without the
controller, the tools and the agent events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:  # what the names resolve to, for type checkers and editors
    from ctxscope.harness.modes.plan.controller import (
        Approval,
        PlanController,
        approved_plan_path,
        default_mode,
    )
    from ctxscope.harness.modes.plan.mode import PLANNING_TOOLS, PlanMode
    from ctxscope.harness.modes.plan.parser import (
        CLOSE_TAG,
        OPEN_TAG,
        ProposedPlanParser,
        Segment,
        SplitText,
        split_proposed_plan,
    )
    from ctxscope.harness.modes.plan.state import PLAN_PROFILES, PlanProfileName, PlanState, load_plan_state
    from ctxscope.harness.modes.plan.texts import IMPLEMENT_PROMPT, NO_DRAFT, NO_PLAN_TO_APPROVE

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
    "Approval": "ctxscope.harness.modes.plan.controller",
    "PlanController": "ctxscope.harness.modes.plan.controller",
    "approved_plan_path": "ctxscope.harness.modes.plan.controller",
    "default_mode": "ctxscope.harness.modes.plan.controller",
    "PLANNING_TOOLS": "ctxscope.harness.modes.plan.mode",
    "PlanMode": "ctxscope.harness.modes.plan.mode",
    "CLOSE_TAG": "ctxscope.harness.modes.plan.parser",
    "OPEN_TAG": "ctxscope.harness.modes.plan.parser",
    "ProposedPlanParser": "ctxscope.harness.modes.plan.parser",
    "Segment": "ctxscope.harness.modes.plan.parser",
    "SplitText": "ctxscope.harness.modes.plan.parser",
    "split_proposed_plan": "ctxscope.harness.modes.plan.parser",
    "PLAN_PROFILES": "ctxscope.harness.modes.plan.state",
    "PlanProfileName": "ctxscope.harness.modes.plan.state",
    "PlanState": "ctxscope.harness.modes.plan.state",
    "load_plan_state": "ctxscope.harness.modes.plan.state",
    "IMPLEMENT_PROMPT": "ctxscope.harness.modes.plan.texts",
    "NO_DRAFT": "ctxscope.harness.modes.plan.texts",
    "NO_PLAN_TO_APPROVE": "ctxscope.harness.modes.plan.texts",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

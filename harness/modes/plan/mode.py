"""`PlanMode`: the collaboration mode while planning (the codex profile's behaviour; other profiles
subclass it).

- The gate: the profile's `Enforcement` (`enforcement.py`): read, search, ask and shell tools (plus the
  profile's own planning tools) run; every other call is answered "still planning" at call time, so
  tools[] never changes; `update_plan` gets the Codex-style TODO refusal. Both name the profile's way
  to submit a plan, and the instructions state the same lists (rendered from the same object).
- The stream: each assistant message goes through a `ProposedPlanParser`; the visible text loses
  its `<proposed_plan>` block, which streams as `plan_delta` events instead. The history keeps the
  model's words as sent.
- The submission: the first complete block of a turn becomes the next revision of the draft when
  the turn ends (`PlanController.submit`).
- Compaction: the new window gets a frozen recovery message (the planning rules and the current
  draft), so the plan survives; later revisions never rewrite it (every profile).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import JsonValue

from ctxscope.harness.context import plan_mode_reminder_item
from ctxscope.harness.events import (
    AgentEvent,
    AssistantMessage,
    PlanDelta,
    QuestionAnswered,
    QuestionAsked,
    TextDelta,
    ToolCall,
    TurnCompleted,
    TurnStarted,
)
from ctxscope.harness.modes.default import DefaultMode
from ctxscope.harness.modes.plan.enforcement import ENFORCEMENT, SHELL_TOOLS, Enforcement, enforcement
from ctxscope.harness.modes.plan.parser import ProposedPlanParser, Segment, split_proposed_plan
from ctxscope.harness.modes.plan.state import PlanState
from ctxscope.harness.modes.plan.texts import (
    CODEX_PLAN_TEXT,
    outside_changed,
    outside_note,
    plan_recovery,
    workspace_changed,
    workspace_note,
)
from ctxscope.harness.modes.plan.workspace import Snapshot, changed_outside, changed_paths, take_snapshot
from ctxscope.harness.tools import PLAN_MODE, GateRule, in_modes, still_planning
from ctxscope.harness.tools.gate import update_plan_refused
from ctxscope.harness.tools.request_user_input import HEADLESS_NOTE

if TYPE_CHECKING:
    from ctxscope.harness.modes.base import EndStep, ModeHost
    from ctxscope.harness.tools import ToolOutcome
    from ctxscope.harness.turn_result import TurnResult

__all__ = ["PLANNING_TOOLS", "SHELL_TOOLS", "PlanMode", "PlanOwner"]

QUESTION_TOOLS: frozenset[str] = frozenset({"request_user_input", "ask_user", "ask_user_question"})
"""Calls that ask the user: shown as question events."""

PLANNING_TOOLS: frozenset[str] = ENFORCEMENT["codex"].runs
"""Tools that run while planning in the codex profile (each profile's list: `enforcement.py`)."""


class PlanOwner(Protocol):
    """Who keeps the plan a planning mode reports to (`PlanController` is one)."""

    @property
    def state(self) -> PlanState: ...

    def assume(self, assumption: str) -> None:
        """Note an assumption made for an unanswered question."""
        ...

    def submit(self, plan: str) -> int:
        """Make `plan` the next revision of the draft; its revision number."""
        ...


@dataclass
class PlanMode(DefaultMode):
    """Planning, as the loop and the tool router see it."""

    controller: PlanOwner | None = None
    name: str = PLAN_MODE
    collaboration_mode: str | None = PLAN_MODE
    parallel_tool_calls: bool = False
    """While planning a batch runs one call after another: each shell call is snapshotted on its
    own, and a submitted plan keeps the later siblings from running."""
    tools: tuple[str, ...] = ()
    """The session's tools, named in the instructions' "what is enforced" part."""
    profile: ClassVar[str] = "codex"
    parses_blocks: ClassVar[bool] = True
    """The plan arrives as a `<proposed_plan>` block in the text (codex); False: through a tool."""
    _parser: ProposedPlanParser = field(default_factory=ProposedPlanParser)
    _turn_plan: str | None = None
    _problems: list[str] = field(default_factory=list)
    _before: Snapshot | None = None
    """The workspace as it was when the running shell call started."""

    rules_text: ClassVar[str] = CODEX_PLAN_TEXT
    """The profile's planning rules; the enforced part is rendered from the gate (`enforcement.py`)."""

    @property
    def enforcement(self) -> Enforcement:
        return enforcement(self.profile)

    def fragment_text(self) -> str:
        if not self.tools:
            return self.rules_text
        return f"{self.rules_text}\n\n{self.enforcement.text(self.tools)}"

    def gate_rules(self) -> Sequence[GateRule]:
        rules = self.enforcement
        return [
            GateRule("update_plan", in_modes(PLAN_MODE), update_plan_refused(rules.submission)),
            GateRule(
                "*",
                in_modes(PLAN_MODE),
                lambda tool: still_planning(tool, rules.submission),
                except_tools=rules.runs | {"update_plan"},
            ),
        ]

    # ---- the stream -----------------------------------------------------------------------------

    def transform_event(self, agent: ModeHost, event: AgentEvent) -> Sequence[AgentEvent]:
        if isinstance(event, TurnStarted):
            self._parser, self._turn_plan, self._problems = ProposedPlanParser(), None, []
            return [event]
        if not self.parses_blocks:
            pass  # the plan arrives through a tool: the text is shown as it is
        elif isinstance(event, TextDelta):
            return _shown(self._parser.feed(event.delta))
        elif isinstance(event, AssistantMessage):
            released = _shown(self._parser.finish())
            self._parser = ProposedPlanParser()
            split = split_proposed_plan(event.text)
            self._note(split.plan, split.extra_blocks, split.unclosed)
            return [*released, AssistantMessage(text=split.visible)]
        if isinstance(event, ToolCall) and event.name in QUESTION_TOOLS:
            questions = _json(event.arguments)
            return [event, QuestionAsked(call_id=event.call_id, tool=event.name or "", questions=questions)]
        if isinstance(event, ToolCall) and event.name in SHELL_TOOLS:
            # Emitted right before the call runs: the moment to record the workspace.
            self._before = take_snapshot(agent.context.cwd)
            return [event]
        if isinstance(event, TurnCompleted) and self.parses_blocks:
            visible = split_proposed_plan(event.final_text).visible
            return [event.model_copy(update={"final_text": visible})]
        return [event]

    def _note(self, plan: str | None, extra: int, unclosed: bool) -> None:
        if plan is not None and self._turn_plan is None:
            self._turn_plan = plan
        elif plan is not None:
            extra += 1
        if extra:
            self._problems.append(
                f"the answer held {extra} more <proposed_plan> block(s); only the first one of a turn "
                "is the plan, the others were ignored"
            )
        if unclosed:
            self._problems.append("a <proposed_plan> block was not closed; it was not taken as a plan")

    def revise_outcome(self, agent: ModeHost, outcome: ToolOutcome) -> ToolOutcome:
        before, self._before = self._before, None
        if outcome.tool not in SHELL_TOOLS or before is None:
            return outcome
        after = take_snapshot(before.root)
        changed, outside = changed_paths(before, after), changed_outside(before, after)
        notes = []
        if changed:
            agent.notice(workspace_changed(changed))
            notes.append(workspace_note(changed))
        if outside:
            agent.notice(outside_changed(outside))
            notes.append(outside_note(outside))
        if not notes:
            return outcome
        item = {**outcome.item, "output": "\n\n".join([str(outcome.item.get("output", "")), *notes])}
        return replace(outcome, item=item)

    def on_tool_outcome(self, agent: ModeHost, outcome: ToolOutcome) -> EndStep | None:
        if outcome.tool in QUESTION_TOOLS:
            output = outcome.result.output
            assumed = HEADLESS_NOTE in output or '"assumed": true' in output
            call_id = outcome.item.get("call_id")
            agent.emit(QuestionAnswered(call_id=call_id, answers=_json(output), assumed=assumed))
        if outcome.tool == "request_user_input" and self.controller is not None:
            # Headless: the tool took the recommended options; they are the plan's assumptions now.
            for assumption in headless_assumptions(outcome.result.output):
                self.controller.assume(assumption)
        return None

    def on_compaction(self, agent: ModeHost) -> Sequence[dict[str, Any]]:
        state = self.controller.state if self.controller else None
        plan = state.draft if state else None
        text = plan_recovery(self.fragment_text(), plan, bool(state and state.approved))
        return [plan_mode_reminder_item("recovery", text)]

    def on_turn_end(self, agent: ModeHost, result: TurnResult) -> None:
        for problem in self._problems:
            agent.notice(problem)
        self._problems = []
        if self._turn_plan is not None and self.controller is not None:
            self.controller.submit(self._turn_plan)
        self._turn_plan = None


def headless_assumptions(output: str) -> list[str]:
    """`id → label` for each question `request_user_input` answered without a user."""
    try:
        answers = json.loads(output).get("answers", {})
    except (ValueError, AttributeError):
        return []
    found = []
    for qid, answer in answers.items() if isinstance(answers, dict) else ():
        labels = answer.get("answers", []) if isinstance(answer, dict) else []
        if HEADLESS_NOTE in labels and labels:
            found.append(f"{qid} → {labels[0]} (recommended; no user to ask)")
    return found


def _json(value: object) -> JsonValue:
    """A JSON text as its value (the model's arguments, a tool's answer); other values as they are."""
    if isinstance(value, str):
        try:
            parsed: JsonValue = json.loads(value)
            return parsed
        except ValueError:
            return value
    return value  # type: ignore[return-value]


def _shown(segments: list[Segment]) -> list[AgentEvent]:
    return [TextDelta(delta=s.text) if s.kind == "text" else PlanDelta(delta=s.text) for s in segments]

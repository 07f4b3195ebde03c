"""The tools a plan profile adds: `submit_plan` and `ask_user` (knightcode), `enter_plan_mode` and
`exit_plan_mode` (claude). The codex profile adds none (its plan is a `<proposed_plan>` block).

claude's are in tools[] from the first request of every session that uses the profile (the model
may ask to enter plan mode). knightcode's are declared when planning first starts
(`DECLARED_ON_FIRST_PLAN`; its manual: "Sessions that never use planning gain no planning instructions
or tool declarations"), and stay from then on, through exits and approvals, and in a resumed session
that has planned. Either way they are refused at call time when they do not fit the mode. A tool reaches the
session's plan state through `PlanHooks`, looked up at call time (the controller is replaced by
`/new` and a fresh handoff).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.modes.plan.texts import SUBMITTED_OUTPUT
from ctxscope.harness.tools import Question, QuestionOption, Tool, ToolContext, ToolError, ToolResult
from ctxscope.harness.tools.base import ToolKind, function_spec, parse_args

__all__ = [
    "DECLARED_ON_FIRST_PLAN",
    "AskUserTool",
    "EnterPlanMode",
    "ExitPlanMode",
    "REPLACED_BY_PROFILE",
    "AskUserQuestion",
    "PlanHooks",
    "SubmitPlan",
    "profile_tools",
]

DECLARED_ON_FIRST_PLAN: dict[str, frozenset[str]] = {"knightcode": frozenset({"submit_plan", "ask_user"})}
"""Per profile: tools left out of tools[] until the session first plans (see the module docstring)."""


class PlanHooks(Protocol):
    """What the profile tools ask of the session's plan controller."""

    @property
    def planning(self) -> bool: ...

    def submit(self, plan: str) -> int: ...

    def enter(self) -> None: ...

    def assume(self, assumption: str) -> None: ...

    @property
    def plan_file(self) -> Path | None: ...


Hooks = Callable[[], PlanHooks]

NOT_PLANNING = "{tool} is only for plan mode, and the session is not planning; carry on with the task."


class _PlanArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")
    plan: str = Field(min_length=1)


class _SubmitBase:
    kind: ToolKind = "function"
    name = ""
    description = ""

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks

    def spec(self) -> dict[str, Any]:
        return function_spec(
            self.name,
            self.description,
            {"plan": {"type": "string", "description": "The complete plan in Markdown."}},
            ["plan"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        a = parse_args(self.name, _PlanArgs, args)
        hooks = self.hooks()
        if not hooks.planning:
            raise ToolError(NOT_PLANNING.format(tool=self.name))
        revision = hooks.submit(a.plan)
        output = SUBMITTED_OUTPUT.format(revision=revision)
        where = hooks.plan_file
        return ToolResult(output if where is None else f"{output} The plan is kept in {where}.")


class SubmitPlan(_SubmitBase):
    """knightcode: replaces the whole draft; the submission ends the run."""

    name = "submit_plan"
    description = (
        "Submit your complete plan for the user's review (plan mode only). Each call replaces the whole "
        "draft. Include the goal, the specific changes with paths, how to verify, and assumptions."
    )


class ExitPlanMode(_SubmitBase):
    """claude: present the plan and ask to leave plan mode; only the user decides."""

    name = "exit_plan_mode"
    description = (
        "Present your finished plan to the user and ask to leave plan mode (plan mode only). "
        "The user approves, asks for changes or rejects it; you cannot approve it yourself."
    )


class EnterPlanMode:
    """claude: the model asks to plan first; the user consents (headless: refused)."""

    name = "enter_plan_mode"
    kind: ToolKind = "function"

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks

    def spec(self) -> dict[str, Any]:
        return function_spec(
            self.name,
            "Ask the user to switch to plan mode before a complex or ambiguous change: explore "
            "read-only and present a plan before editing. The user must consent.",
            {},
            [],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        hooks = self.hooks()
        if hooks.planning:
            return ToolResult("Already in plan mode: keep exploring and present the plan.")
        if ctx.approver is None:
            raise ToolError(
                "enter_plan_mode was refused: this session is headless, so nobody can consent to plan "
                "mode. Continue without it, or tell the user to start with --plan."
            )
        from ctxscope.harness.tools import ApprovalRequest

        request = ApprovalRequest(self.name, "switch to plan mode", "the model asks to plan first", ctx.cwd)
        if not ctx.approver(request):
            raise ToolError("The user declined plan mode. Continue with the task as asked.")
        hooks.enter()
        return ToolResult("Plan mode is on: explore read-only, then present the plan with exit_plan_mode.")


_OPTION: dict[str, Any] = {
    "type": "object",
    "properties": {"label": {"type": "string"}, "description": {"type": "string"}},
    "required": ["label", "description"],
    "additionalProperties": False,
}
"""One choice of a question, in the ask tools' specs."""


class _Option(BaseModel):
    model_config = ConfigDict(extra="ignore")
    label: str = Field(min_length=1)
    description: str = ""


class _AskArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")
    question: str = Field(min_length=1)
    options: list[_Option] = Field(min_length=2, max_length=4)


class AskUserTool:
    """knightcode `ask_user`: one question, 2-4 options (recommended first) plus a free-text answer."""

    name = "ask_user"
    kind: ToolKind = "function"

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks

    def spec(self) -> dict[str, Any]:
        return function_spec(
            self.name,
            "Ask the user one question about a trade-off you cannot settle from the workspace. Offer 2-4 "
            "options, the recommended one first; the user may also answer in their own words.",
            {"question": {"type": "string"}, "options": {"type": "array", "items": _OPTION}},
            ["question", "options"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        a = parse_args(self.name, _AskArgs, args)
        options = tuple(QuestionOption(o.label, o.description) for o in a.options)
        if ctx.ask_user is None:
            # Headless: the recommended option, recorded as an assumption of the plan.
            choice = options[0].label
            self.hooks().assume(f"{a.question} → {choice} (recommended; no user to ask)")
            return ToolResult(json.dumps({"answer": choice, "assumed": True}, ensure_ascii=False))
        answers = ctx.ask_user([Question("q", "question", a.question, options)])
        answer = answers.get("q")
        if not answer:
            raise ToolError("The user did not answer. Ask again later or make a stated assumption.")
        return ToolResult(json.dumps({"answer": answer, "assumed": False}, ensure_ascii=False))


# Claude Code's bounds; the spec tells the model what the argument check enforces (one pair of numbers).
_QUESTIONS = (1, 4)
_OPTIONS = (2, 4)
_HEADER_MAX = 12


class _ClaudeQuestion(BaseModel):
    model_config = ConfigDict(extra="ignore")
    question: str = Field(min_length=1)
    header: str = Field(min_length=1, max_length=_HEADER_MAX)
    options: list[_Option] = Field(min_length=_OPTIONS[0], max_length=_OPTIONS[1])
    multiSelect: bool = False  # noqa: N815 (Claude Code's field name)


class _ClaudeAskArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")
    questions: list[_ClaudeQuestion] = Field(min_length=_QUESTIONS[0], max_length=_QUESTIONS[1])


class AskUserQuestion:
    """claude `ask_user_question` (Claude Code's AskUserQuestion): 1-4 questions of 2-4 options each,
    optionally multi-select; the user may always answer in their own words ("Other").

    The answer is `{"answers": {"<question>": "<label>" | ["<label>", ...]}, "assumed": bool}`;
    headless the first (recommended) option of each question is taken and recorded as an assumption."""

    name = "ask_user_question"
    kind: ToolKind = "function"

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks

    def spec(self) -> dict[str, Any]:
        question = {
            "type": "object",
            "properties": {
                "question": {"type": "string", "description": "The complete question."},
                "header": {
                    "type": "string",
                    "description": f"A short tag, at most {_HEADER_MAX} characters.",
                    "maxLength": _HEADER_MAX,
                },
                "options": {
                    "type": "array",
                    "description": f"{_OPTIONS[0]}-{_OPTIONS[1]} choices, recommended first.",
                    "items": _OPTION,
                    "minItems": _OPTIONS[0],
                    "maxItems": _OPTIONS[1],
                },
                "multiSelect": {"type": "boolean", "description": "Allow several choices."},
            },
            "required": ["question", "header", "options", "multiSelect"],
            "additionalProperties": False,
        }
        return function_spec(
            self.name,
            "Ask the user 1-4 questions when only they can decide (preferences, trade-offs). Each question "
            "has 2-4 options, the recommended one first; set multiSelect to allow several. The user can "
            "always answer in their own words instead.",
            {"questions": {"type": "array", "items": question, "minItems": _QUESTIONS[0], "maxItems": _QUESTIONS[1]}},
            ["questions"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        a = parse_args(self.name, _ClaudeAskArgs, args)
        texts = [q.question for q in a.questions]
        if len(set(texts)) != len(texts):
            raise ToolError(f"invalid arguments for {self.name}: each question must be different")
        questions = [
            Question(
                f"q{n}",
                q.header,
                q.question,
                tuple(QuestionOption(o.label, o.description) for o in q.options),
                multi_select=q.multiSelect,
            )
            for n, q in enumerate(a.questions, 1)
        ]
        answers: dict[str, Any] = {}
        if ctx.ask_user is None:
            for q in questions:
                choice = q.options[0].label
                self.hooks().assume(f"{q.question} → {choice} (recommended; no user to ask)")
                answers[q.question] = [choice] if q.multi_select else choice
            return ToolResult(json.dumps({"answers": answers, "assumed": True}, ensure_ascii=False))
        given = ctx.ask_user(questions)
        for q in questions:
            answer = given.get(q.id)
            if answer:
                answers[q.question] = answer
        if not answers:
            raise ToolError("The user did not answer. Ask again later or make a stated assumption.")
        return ToolResult(json.dumps({"answers": answers, "assumed": False}, ensure_ascii=False))


REPLACED_BY_PROFILE: dict[str, frozenset[str]] = {"claude": frozenset({"request_user_input"})}
"""Per profile: built-in tools its own tools replace (claude asks with `ask_user_question`), left out
of tools[] for the whole session so the model sees one question tool."""


def profile_tools(profile: str, hooks: Hooks) -> list[Tool]:
    """The tools `profile` adds to tools[] (empty for codex)."""
    if profile == "knightcode":
        return [SubmitPlan(hooks), AskUserTool(hooks)]
    if profile == "claude":
        return [EnterPlanMode(hooks), ExitPlanMode(hooks), AskUserQuestion(hooks)]
    return []

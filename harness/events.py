"""Agent events: what the loop tells its front end, as pydantic models discriminated on `type`.

One model per event. `--json` writes `event_json(event)` per line; the printers and the demo match on
the model classes. The field order and names are the wire format for `--json` consumers (documented
in `docs/agent-events.md`; the JSON schema there is `agent_event_schema()`, checked by a test):
change a field and the doc test fails until the schema is regenerated with
`python -m ctxscope.harness.events > docs/agent-events.schema.json`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, JsonValue, TypeAdapter

__all__ = [
    "AgentEvent",
    "AssistantMessage",
    "Compacted",
    "EventSink",
    "GoalUpdated",
    "ModeChange",
    "ModelSwitch",
    "Notice",
    "PlanApproved",
    "PlanDelta",
    "PlanSubmitted",
    "QuestionAnswered",
    "QuestionAsked",
    "ReasoningDelta",
    "SessionStarted",
    "TextDelta",
    "ToolCall",
    "ToolOutput",
    "TurnCompleted",
    "TurnError",
    "TurnStarted",
    "TurnStop",
    "agent_event_schema",
    "event_json",
    "parse_agent_event",
]

TurnStop = Literal["completed", "max_steps", "ended_by_mode"]
"""Why a turn stopped: the model answered without tool calls, the `max_steps` bound was hit with
calls still coming, or the mode ended the step after a tool outcome (a submitted plan)."""


# `from` is a Python keyword: the field is `from_` in code and `from` on the wire.
_FROM = AliasChoices("from", "from_")


class _Event(BaseModel):
    # Frozen: a mode's `transform_event` returns new events rather than editing the one it was given.
    model_config = ConfigDict(
        frozen=True,
        # The schema documents the serialised line: every field, `type` included, is always there.
        json_schema_serialization_defaults_required=True,
        use_attribute_docstrings=True,
    )


class SessionStarted(_Event):
    """First line of `--json`: which session and capture this run writes; again when the run goes on in
    a new session (a fresh plan handoff, `/new`)."""

    type: Literal["session_started"] = "session_started"
    session_id: str
    session_file: str
    model: str
    provider: str
    capture: str | None
    """The recording file, or None when capture is off."""


class TurnStarted(_Event):
    """A user turn began."""

    type: Literal["turn_started"] = "turn_started"
    turn_id: str


class TextDelta(_Event):
    """A piece of the assistant's visible text, as it streams."""

    type: Literal["text_delta"] = "text_delta"
    delta: str


class ReasoningDelta(_Event):
    """A piece of the reasoning summary, as it streams."""

    type: Literal["reasoning_delta"] = "reasoning_delta"
    delta: str


class AssistantMessage(_Event):
    """One finished assistant message (a response may hold several)."""

    type: Literal["assistant_message"] = "assistant_message"
    text: str


class ToolCall(_Event):
    """The model called a tool; `arguments` is the call's JSON text (or freeform input)."""

    type: Literal["tool_call"] = "tool_call"
    name: str | None
    call_id: str | None
    arguments: JsonValue


class ToolOutput(_Event):
    """The one output item a call got (also for calls refused, blocked or aborted)."""

    type: Literal["tool_output"] = "tool_output"
    call_id: str | None
    output: JsonValue


class Notice(_Event):
    """Something the person should know (retries, skipped skills, max_steps); never an answer."""

    type: Literal["notice"] = "notice"
    message: str


class ModelSwitch(_Event):
    """`/model`: the following requests go to `to`."""

    type: Literal["model_switch"] = "model_switch"
    from_: str = Field(serialization_alias="from", validation_alias=_FROM)
    to: str


class ModeChange(_Event):
    """The collaboration mode changed (its fragment goes with the next request)."""

    type: Literal["mode_change"] = "mode_change"
    from_: str = Field(serialization_alias="from", validation_alias=_FROM)
    to: str


class PlanDelta(_Event):
    """A piece of the plan block as it streams (plan mode; the block is not in `text_delta`)."""

    type: Literal["plan_delta"] = "plan_delta"
    delta: str


class PlanSubmitted(_Event):
    """The model submitted a plan: the whole draft, now revision `revision` of this session."""

    type: Literal["plan_submitted"] = "plan_submitted"
    revision: int
    plan: str


class PlanApproved(_Event):
    """The user approved `revision`; implementation follows in this session or, `fresh`, a new one."""

    type: Literal["plan_approved"] = "plan_approved"
    revision: int
    fresh: bool
    session_id: str
    """The session that implements it (a new one when `fresh`)."""


class QuestionAsked(_Event):
    """While planning, the model asked the user (`request_user_input`, `ask_user`)."""

    type: Literal["question_asked"] = "question_asked"
    call_id: str | None
    tool: str
    questions: JsonValue
    """The call's arguments as the model sent them (questions and their options)."""


class QuestionAnswered(_Event):
    """The answer the model got; `assumed` when nobody was there and the recommended option was taken."""

    type: Literal["question_answered"] = "question_answered"
    call_id: str | None
    answers: JsonValue
    assumed: bool


class TurnError(_Event):
    """The turn failed (upstream or configuration error); the session file is intact."""

    type: Literal["error"] = "error"
    turn_id: str
    message: str


class TurnCompleted(_Event):
    """The turn ended; `final_text` is the last assistant message."""

    type: Literal["turn_completed"] = "turn_completed"
    turn_id: str
    final_text: str
    steps: int
    """Model requests this turn made."""
    stopped: TurnStop
    usage: list[dict[str, JsonValue]]
    """The server-reported usage of each request, in order."""


class GoalUpdated(_Event):
    """The thread goal was set, changed status, used tokens or was cleared (`objective` None)."""

    type: Literal["goal_updated"] = "goal_updated"
    objective: str | None
    status: str | None
    """active, paused, blocked, complete or budget_limited; None when the goal was cleared."""
    tokens_used: int
    token_budget: int | None
    reason: str
    """What changed it: `user`, `tool`, `turn` (usage counted), `interrupted`, `budget`."""


class Compacted(_Event):
    """The history was compacted: the next request sees a new context window."""

    type: Literal["compacted"] = "compacted"
    trigger: str
    """`manual` (/compact), `auto` (the threshold was passed) or `context_length` (the backend
    refused the request as too long)."""
    window: int
    """The new window's number (`x-codex-window-id` is `<thread>:<window>`)."""
    items_before: int
    items_after: int


AgentEvent = Annotated[
    SessionStarted
    | TurnStarted
    | TextDelta
    | ReasoningDelta
    | AssistantMessage
    | ToolCall
    | ToolOutput
    | Notice
    | ModelSwitch
    | ModeChange
    | PlanDelta
    | PlanSubmitted
    | PlanApproved
    | QuestionAsked
    | QuestionAnswered
    | TurnError
    | TurnCompleted
    | GoalUpdated
    | Compacted,
    Field(discriminator="type"),
]

EventSink = Callable[[AgentEvent], None]
"""Receives every agent event, in order (a printer, a test's list, a mode-aware front end)."""

_ADAPTER: TypeAdapter[AgentEvent] = TypeAdapter(AgentEvent)


def event_json(event: AgentEvent) -> str:
    """The event as one line of `--json` output (keys in field order, `from` spelled as on the wire)."""
    return json.dumps(event.model_dump(mode="json", by_alias=True), ensure_ascii=False)


def parse_agent_event(data: dict[str, Any] | str) -> AgentEvent:
    """One `--json` line (or its parsed object) back into its event model."""
    if isinstance(data, str):
        return _ADAPTER.validate_json(data)
    return _ADAPTER.validate_python(data)


def agent_event_schema() -> dict[str, Any]:
    """JSON schema of one `--json` line (the union of all events, as serialised)."""
    schema = _ADAPTER.json_schema(mode="serialization", by_alias=True)
    schema["title"] = "ctxscope agent event"
    return schema


if __name__ == "__main__":
    print(json.dumps(agent_event_schema(), indent=2, ensure_ascii=False))

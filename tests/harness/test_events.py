"""Agent events: the `--json` wire format is pinned, documented, and its schema is committed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

import pytest

from ctxscope.harness.events import (
    AgentEvent,
    AssistantMessage,
    Compacted,
    GoalUpdated,
    ModeChange,
    ModelSwitch,
    Notice,
    PlanApproved,
    PlanDelta,
    PlanSubmitted,
    QuestionAnswered,
    QuestionAsked,
    ReasoningDelta,
    SessionStarted,
    TextDelta,
    ToolCall,
    ToolOutput,
    TurnCompleted,
    TurnError,
    TurnStarted,
    agent_event_schema,
    event_json,
    parse_agent_event,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"

# The keys `--json` consumers have read since the first release, in order: never rename or reorder.
WIRE_KEYS: dict[str, list[str]] = {
    "session_started": ["type", "session_id", "session_file", "model", "provider", "capture"],
    "turn_started": ["type", "turn_id"],
    "text_delta": ["type", "delta"],
    "reasoning_delta": ["type", "delta"],
    "assistant_message": ["type", "text"],
    "tool_call": ["type", "name", "call_id", "arguments"],
    "tool_output": ["type", "call_id", "output"],
    "notice": ["type", "message"],
    "model_switch": ["type", "from", "to"],
    "mode_change": ["type", "from", "to"],
    "plan_delta": ["type", "delta"],
    "plan_submitted": ["type", "revision", "plan"],
    "plan_approved": ["type", "revision", "fresh", "session_id"],
    "question_asked": ["type", "call_id", "tool", "questions"],
    "question_answered": ["type", "call_id", "answers", "assumed"],
    "error": ["type", "turn_id", "message"],
    "turn_completed": ["type", "turn_id", "final_text", "steps", "stopped", "usage"],
    "goal_updated": ["type", "objective", "status", "tokens_used", "token_budget", "reason"],
    "compacted": ["type", "trigger", "window", "items_before", "items_after"],
}

SAMPLES: list[AgentEvent] = [
    SessionStarted(session_id="s", session_file="/s.jsonl", model="m", provider="script", capture=None),
    TurnStarted(turn_id="t"),
    TextDelta(delta="héllo"),
    ReasoningDelta(delta="think"),
    AssistantMessage(text="hello"),
    ToolCall(name="list_dir", call_id="c1", arguments='{"path": "."}'),
    ToolOutput(call_id="c1", output="a.txt"),
    Notice(message="retrying"),
    ModelSwitch(from_="a", to="b"),
    ModeChange(from_="default", to="plan"),
    PlanDelta(delta="1. add"),
    PlanSubmitted(revision=2, plan="# Plan\n1. add\n"),
    PlanApproved(revision=2, fresh=True, session_id="s2"),
    QuestionAsked(call_id="c2", tool="ask_user", questions={"question": "Which?", "options": []}),
    QuestionAnswered(call_id="c2", answers={"answer": "a", "assumed": True}, assumed=True),
    TurnError(turn_id="t", message="upstream said no"),
    TurnCompleted(turn_id="t", final_text="hello", steps=2, stopped="max_steps", usage=[{"input_tokens": 3}]),
    GoalUpdated(objective="ship it", status="active", tokens_used=0, token_budget=None, reason="user"),
    Compacted(trigger="manual", window=1, items_before=9, items_after=4),
]


def _event_classes() -> list[type]:
    union = get_args(AgentEvent)[0]
    return list(get_args(union))


def test_every_event_keeps_its_wire_keys_in_order() -> None:
    assert sorted(type(e).__name__ for e in SAMPLES) == sorted(c.__name__ for c in _event_classes())
    for event in SAMPLES:
        line = event_json(event)
        data = json.loads(line)
        assert list(data) == WIRE_KEYS[data["type"]]
        assert parse_agent_event(line) == event == parse_agent_event(data)
    assert "héllo" in event_json(SAMPLES[2])  # not \u-escaped, as before


def test_an_unknown_type_is_rejected_and_unknown_keys_are_ignored() -> None:
    with pytest.raises(ValueError):
        parse_agent_event({"type": "telepathy"})
    assert parse_agent_event({"type": "notice", "message": "m", "added_later": 1}) == Notice(message="m")


def test_the_committed_schema_is_the_models_schema() -> None:
    committed = json.loads((DOCS / "agent-events.schema.json").read_text(encoding="utf-8"))
    assert committed == agent_event_schema(), (
        "docs/agent-events.schema.json is stale: python -m ctxscope.harness.events > docs/agent-events.schema.json"
    )
    assert set(committed["discriminator"]["mapping"]) == set(WIRE_KEYS)


def test_the_doc_describes_every_event_and_key() -> None:
    doc = (DOCS / "agent-events.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^### `(\w+)`\n(.*?)(?=^#|\Z)", doc, flags=re.MULTILINE | re.DOTALL))
    assert set(sections) == set(WIRE_KEYS)
    for kind, keys in WIRE_KEYS.items():
        missing = [k for k in keys[1:] if f"`{k}`" not in sections[kind]]
        assert not missing, f"docs/agent-events.md: {kind} does not describe {missing}"
    example = doc.split("## Example", 1)[1]
    for line in re.findall(r"^\{.*\}$", example, flags=re.MULTILINE):
        parse_agent_event(line)

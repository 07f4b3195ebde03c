"""Codex's own /goal messages on the timeline (wording as the Codex CLI writes it, shapes from
`codex-observed.md` §5): a continuation is a continuation, never "goal set: Continue working…"."""

from __future__ import annotations

from typing import Any

from inspector.analysis.items import ItemClassifier
from inspector.analysis.world_state import empty_state, fold_items, state_changes
from inspector.reports.world import describe_changes

CODEX_STATUS = (
    '<codex_internal_context source="user_goal">\nThe user set the goal: "write a haiku"\n'
    'Goal status: "active".\n</codex_internal_context>'
)
CODEX_CONTINUATION = (
    '<codex_internal_context source="goal">\nContinue working toward the active thread goal.\n\n'
    "Budget:\n- Tokens used: 4700\n- Token budget: 30000\n- Tokens remaining: 25300\n\n"
    "Completion audit:\n- Check every requirement.\n</codex_internal_context>"
)
CODEX_PAUSED = (
    '<codex_internal_context source="user_goal">\nGoal status: "paused".\n</codex_internal_context>'
)


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def objective(text: str) -> dict[str, Any]:
    return {
        "type": "function_call_output",
        "id": "fco_1",
        "name": "goal_objective",
        "namespace": "agent",
        "output": text,
    }


def test_codex_goal_messages_read_as_goal_events() -> None:
    classify = ItemClassifier().classify
    first = classify([user(CODEX_STATUS), objective("write a haiku"), user(CODEX_CONTINUATION)])
    assert [i.kind for i in first] == ["goal_status", "goal_objective", "goal_continuation"]
    continuation = first[2].fragments[0].values
    assert continuation == {"tokens_used": 4700, "token_budget": 30000, "tokens_remaining": 25300}
    state = fold_items(empty_state(), first)
    told = describe_changes(state_changes(None, state, first))
    assert told == ["goal set: write a haiku", "goal continuation #1"]
    later = classify([user(CODEX_CONTINUATION)])
    after = fold_items(state, later)
    assert describe_changes(state_changes(state, after, later)) == ["goal continuation #2"]
    paused = classify([user(CODEX_PAUSED)])
    assert describe_changes(state_changes(after, fold_items(after, paused), paused)) == ["goal paused"]

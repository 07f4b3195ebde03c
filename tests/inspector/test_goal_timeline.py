"""Codex's own /goal messages on the timeline (wording as the Codex CLI writes it, shapes from
`codex-observed.md` §5): a continuation is a continuation, never "goal set: Continue working…"."""

from __future__ import annotations

from typing import Any

from ctxscope.inspector.analysis.goal_events import goal_events
from ctxscope.inspector.analysis.items import ItemClassifier
from ctxscope.inspector.analysis.world_state import empty_state, fold_items, state_changes
from ctxscope.inspector.reports.world import describe_changes

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


CODEX_RESUMED = (
    '<codex_internal_context source="user_goal">\nGoal status: "active".\n</codex_internal_context>'
)
CODEX_BUDGET = (
    '<codex_internal_context source="user_goal">\nGoal status: "budget_limited".\n</codex_internal_context>'
)
# `/goal clear` (its wording is not in codex-observed.md): a user_goal message with no status line.
CODEX_CLEARED = (
    '<codex_internal_context source="user_goal">\nThe user cleared the goal.\n</codex_internal_context>'
)


def test_every_goal_event_is_named_and_typed() -> None:
    classify = ItemClassifier().classify
    state, said, kinds = empty_state(), [], []
    for text in (
        CODEX_STATUS,
        CODEX_CONTINUATION,
        CODEX_PAUSED,
        CODEX_RESUMED,
        CODEX_CONTINUATION,
        CODEX_BUDGET,
    ):
        items = classify([user(text)])
        after = fold_items(state, items)
        changes = state_changes(state, after, items)
        said += describe_changes(changes)
        kinds += [(e.kind.value, e.number) for e in goal_events(changes)]
        state = after
    assert said == [
        "goal set: write a haiku",
        "goal continuation #1",
        "goal paused",
        "goal resumed",
        "goal continuation #2",
        "goal budget reached",
    ]
    assert kinds == [
        ("set", None),
        ("continuation", 1),
        ("paused", None),
        ("resumed", None),
        ("continuation", 2),
        ("budget reached", None),
    ]


def test_a_cleared_goal_says_goal_cleared_not_goal_status_none() -> None:
    classify = ItemClassifier().classify
    first = classify([user(CODEX_STATUS)])
    state = fold_items(empty_state(), first)
    cleared = classify([user(CODEX_CLEARED)])
    assert [p.label for i in cleared for p in i.fragments] == ["goal_status:cleared"]
    after = fold_items(state, cleared)
    changes = state_changes(state, after, cleared)
    assert after.value("goal") is None
    assert describe_changes(changes) == ["goal cleared"]
    assert [e.kind.value for e in goal_events(changes)] == ["cleared"]

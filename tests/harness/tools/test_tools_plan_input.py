"""update_plan and request_user_input: validation, state, headless and interactive answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools_support import call, make_router

from ctxscope.harness.tools import PlanStep, Question

OPTIONS = [{"label": "Keep it", "description": "recommended"}, {"label": "Drop it", "description": "other"}]


def question(qid: str = "scope", **over: Any) -> dict[str, Any]:
    return {"id": qid, "header": "Scope", "question": "Keep the old API?", "options": OPTIONS, **over}


def test_update_plan_stores_the_checklist(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    args = {
        "explanation": "first cut",
        "plan": [
            {"step": "read code", "status": "completed"},
            {"step": "write tests", "status": "in_progress"},
            {"step": "ship", "status": "pending"},
        ],
    }
    assert call(router, "update_plan", args) == "Plan updated"
    plan = router.ctx.plan
    assert plan.steps == [
        PlanStep("read code", "completed"),
        PlanStep("write tests", "in_progress"),
        PlanStep("ship", "pending"),
    ]
    assert plan.explanation == "first cut" and plan.revision == 1
    assert plan.render() == "[x] read code\n[>] write tests\n[ ] ship"


def test_update_plan_rejects_two_in_progress_and_keeps_old_plan(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    call(router, "update_plan", {"plan": [{"step": "a", "status": "pending"}]})
    out = call(
        router,
        "update_plan",
        {"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]},
    )
    assert "at most one step may be in_progress, got 2" in out
    assert router.ctx.plan.steps == [PlanStep("a", "pending")] and router.ctx.plan.revision == 1


def test_update_plan_validates_status(tmp_path: Path) -> None:
    out = call(make_router(tmp_path), "update_plan", {"plan": [{"step": "a", "status": "done"}]})
    assert out.startswith("invalid arguments for update_plan: plan.0.status: Input should be 'pending'")


def test_headless_takes_recommended_option_and_says_so(tmp_path: Path) -> None:
    out = call(make_router(tmp_path), "request_user_input", {"questions": [question("a"), question("b")]})
    answers = json.loads(out)
    assert set(answers) == {"answers"}
    for qid in ("a", "b"):
        got = answers["answers"][qid]["answers"]
        assert got[0] == "Keep it"
        assert got[1].startswith("user_note: no user is attached (headless run)")


def test_interactive_answers(tmp_path: Path) -> None:
    seen: list[list[Question]] = []

    def ask(questions: list[Question]) -> dict[str, Any]:
        seen.append(questions)
        return {"a": "Drop it", "b": ["Other: my own words"]}

    router = make_router(tmp_path, ask_user=ask)
    out = call(router, "request_user_input", {"questions": [question("a"), question("b"), question("c")]})
    assert json.loads(out) == {
        "answers": {
            "a": {"answers": ["Drop it"]},
            "b": {"answers": ["Other: my own words"]},
            "c": {"answers": ["user_note: the user did not answer this question"]},
        }
    }
    assert [q.id for q in seen[0]] == ["a", "b", "c"]
    assert seen[0][0].options[0].label == "Keep it" and seen[0][0].header == "Scope"


def test_question_validation(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    bad = [
        (
            {"questions": [question(header="Much too long header")]},
            "questions.0.header: String should have at most 12",
        ),
        ({"questions": [question(options=OPTIONS[:1])]}, "questions.0.options: List should have at least 2"),
        ({"questions": [question(options=OPTIONS * 2)]}, "questions.0.options: List should have at most 3"),
        ({"questions": []}, "questions: List should have at least 1"),
        ({"questions": [question("a"), question("a")]}, "question ids must be unique"),
        ({}, "questions: Field required"),
    ]
    for args, message in bad:
        out = call(router, "request_user_input", args)
        assert out.startswith("invalid arguments for request_user_input") and message in out, out


def test_prompt_failure_is_reported(tmp_path: Path) -> None:
    def ask(_questions: list[Question]) -> dict[str, Any]:
        raise OSError("no tty")

    out = call(make_router(tmp_path, ask_user=ask), "request_user_input", {"questions": [question()]})
    assert out == "request_user_input failed: the question prompt failed (OSError: no tty)"


def test_prompt_returning_garbage_is_reported(tmp_path: Path) -> None:
    def ask(_questions: list[Question]) -> Any:
        return ["Keep it"]

    out = call(make_router(tmp_path, ask_user=ask), "request_user_input", {"questions": [question()]})
    assert out == "request_user_input failed: the question prompt returned list, not answers"

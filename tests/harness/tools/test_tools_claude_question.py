"""claude's `ask_user_question` (Claude Code's AskUserQuestion): 1-4 questions of 2-4 options,
multi-select, answers keyed by the question's text; headless it takes the recommended option and
says so as an assumption; on the terminal a multi-select question takes comma-separated numbers."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from tools_support import call, make_router

from ctxscope.harness.modes.plan.tools import AskUserQuestion
from ctxscope.harness.terminal_prompts import terminal_ask
from ctxscope.harness.tools import Question, QuestionOption


class _Assumptions:
    """The plan controller's side of the hooks: what the tool may assume is written down here."""

    planning = True
    plan_file = None

    def __init__(self) -> None:
        self.assumed: list[str] = []

    def submit(self, plan: str) -> int:
        raise AssertionError("ask_user_question never submits a plan")

    def enter(self) -> None:
        raise AssertionError("ask_user_question never enters plan mode")

    def assume(self, assumption: str) -> None:
        self.assumed.append(assumption)


def _option(label: str) -> dict[str, str]:
    return {"label": label, "description": f"{label} it is"}


def _question(text: str, *labels: str, multi: bool = False, header: str = "Pick") -> dict[str, Any]:
    return {"question": text, "header": header, "options": [_option(x) for x in labels], "multiSelect": multi}


def _router(tmp_path: Path, **ctx: Any) -> tuple[Any, _Assumptions]:
    hooks = _Assumptions()
    return make_router(tmp_path, tools=[AskUserQuestion(lambda: hooks)], **ctx), hooks


def test_multi_select_answers_are_lists_keyed_by_the_question(tmp_path: Path) -> None:
    seen: list[list[Question]] = []

    def ask(questions: list[Question]) -> dict[str, Any]:
        seen.append(questions)
        return {"q1": ["Tests", "Docs"], "q2": "in my own words"}

    router, hooks = _router(tmp_path, ask_user=ask)
    args = {
        "questions": [
            _question("What should ship?", "Code", "Tests", "Docs", multi=True),
            _question("Which branch?", "main", "next"),
        ]
    }
    out = json.loads(call(router, "ask_user_question", args))
    answers = {"What should ship?": ["Tests", "Docs"], "Which branch?": "in my own words"}
    assert out == {"answers": answers, "assumed": False}
    assert [(q.id, q.multi_select, [o.label for o in q.options]) for q in seen[0]] == [
        ("q1", True, ["Code", "Tests", "Docs"]),
        ("q2", False, ["main", "next"]),
    ]
    assert hooks.assumed == []


def test_headless_takes_the_recommended_option_and_writes_the_assumption(tmp_path: Path) -> None:
    router, hooks = _router(tmp_path)
    args = {"questions": [_question("Ship what?", "Code", "Docs", multi=True), _question("Where?", "main", "next")]}
    out = json.loads(call(router, "ask_user_question", args))
    assert out == {"answers": {"Ship what?": ["Code"], "Where?": "main"}, "assumed": True}
    assert hooks.assumed == [
        "Ship what? → Code (recommended; no user to ask)",
        "Where? → main (recommended; no user to ask)",
    ]


@pytest.mark.parametrize(
    ("questions", "message"),
    [
        ([], "questions: List should have at least 1"),
        ([_question(f"Q{n}?", "a", "b") for n in range(5)], "questions: List should have at most 4"),
        ([_question("One?", "a")], "questions.0.options: List should have at least 2"),
        ([_question("Many?", "a", "b", "c", "d", "e")], "questions.0.options: List should have at most 4"),
        ([_question("Long?", "a", "b", header="Much too long")], "questions.0.header: String should have at most 12"),
        ([_question("Same?", "a", "b"), _question("Same?", "c", "d")], "each question must be different"),
    ],
)
def test_bad_questions_are_refused_in_one_line(tmp_path: Path, questions: list[Any], message: str) -> None:
    router, _ = _router(tmp_path, ask_user=lambda qs: {"q1": "a"})
    out = call(router, "ask_user_question", {"questions": questions})
    assert out.startswith("invalid arguments for ask_user_question") and message in out, out


def test_no_answer_at_all_tells_the_model_to_ask_later_or_assume(tmp_path: Path) -> None:
    router, _ = _router(tmp_path, ask_user=lambda qs: {})
    out = call(router, "ask_user_question", {"questions": [_question("Ship?", "yes", "no")]})
    assert "The user did not answer" in out and "stated assumption" in out


def test_the_terminal_takes_comma_separated_numbers_for_a_multi_select(monkeypatch: pytest.MonkeyPatch) -> None:
    options = tuple(QuestionOption(x, f"{x} it is") for x in ("Code", "Tests", "Docs"))
    several = Question("q1", "Ship", "What should ship?", options, multi_select=True)
    one = Question("q2", "Branch", "Which branch?", options[:2])
    # '4' is no option and asks again; '3, 1, 3' picks Docs and Code once each; '2' picks Tests
    monkeypatch.setattr("sys.stdin", io.StringIO("4\n3, 1, 3\n2\n"))
    assert terminal_ask([several, one]) == {"q1": ["Docs", "Code"], "q2": "Tests"}


def test_the_spec_tells_the_model_the_bounds_the_tool_enforces(tmp_path: Path) -> None:
    spec = AskUserQuestion(lambda: _Assumptions()).spec()["parameters"]["properties"]["questions"]
    question = spec["items"]["properties"]
    bounds = {
        "questions": (spec["minItems"], spec["maxItems"]),
        "options": (question["options"]["minItems"], question["options"]["maxItems"]),
    }
    assert bounds == {"questions": (1, 4), "options": (2, 4)}  # Claude Code's AskUserQuestion
    router, _ = _router(tmp_path, ask_user=lambda qs: {f"q{n}": "o0" for n in range(1, 5)})

    def ask(questions: int, options: int) -> str:
        labels = [f"o{i}" for i in range(options)]
        asked = [_question(f"Q{n}?", *labels) for n in range(questions)]
        return call(router, "ask_user_question", {"questions": asked})

    low_q, high_q = bounds["questions"]
    low_o, high_o = bounds["options"]
    for n, m in ((low_q, low_o), (high_q, high_o)):  # at the bounds: answered
        assert json.loads(ask(n, m))["assumed"] is False
    for n, m in ((low_q - 1, low_o), (high_q + 1, low_o), (low_q, low_o - 1), (low_q, high_o + 1)):  # past them
        assert ask(n, m).startswith("invalid arguments for ask_user_question")
    header = question["header"]["maxLength"]
    assert header == 12 and f"at most {header} characters" in question["header"]["description"]

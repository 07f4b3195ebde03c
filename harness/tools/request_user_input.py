"""`request_user_input`: structured multiple-choice questions to the user.

Each question has an id, a short header (at most 12 characters), the question, and 2–3 options with
the recommended one first; a UI may add its own "Other". The answer is the JSON object
`{"answers": {"<id>": {"answers": ["<label>", ...]}}}`.

Headless (`ctx.ask_user is None`) the recommended (first) option is taken for every question and a
`user_note: ...` entry in each answer list says so, so the model knows nobody chose it. Whether the
tool may be called outside Plan mode is the router gate's decision (see `gate.py`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.tools.base import ToolError, ToolKind, ToolResult, function_spec, parse_args
from ctxscope.harness.tools.call_context import Question, QuestionOption, ToolContext

MAX_HEADER = 12
MAX_QUESTIONS = 3
HEADLESS_NOTE = (
    "user_note: no user is attached (headless run); the recommended option was chosen automatically"
)
UNANSWERED_NOTE = "user_note: the user did not answer this question"


class _Option(BaseModel):
    model_config = ConfigDict(extra="ignore")
    label: str = Field(min_length=1)
    description: str = ""


class _Question(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(min_length=1)
    header: str = Field(min_length=1, max_length=MAX_HEADER)
    question: str = Field(min_length=1)
    options: list[_Option] = Field(min_length=2, max_length=3)


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    questions: list[_Question] = Field(min_length=1, max_length=MAX_QUESTIONS)


def _labels(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [str(value)]


class RequestUserInput:
    """The `request_user_input` tool."""

    name = "request_user_input"
    kind: ToolKind = "function"

    def spec(self) -> dict[str, Any]:
        """Wire spec."""
        option = {
            "type": "object",
            "properties": {
                "label": {"type": "string", "description": "Short answer text (1-5 words)."},
                "description": {"type": "string", "description": "What choosing it means."},
            },
            "required": ["label", "description"],
            "additionalProperties": False,
        }
        question = {
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "Stable id used as the key in the answer."},
                "header": {"type": "string", "description": f"Short tag, at most {MAX_HEADER} characters."},
                "question": {"type": "string", "description": "One-sentence question."},
                "options": {
                    "type": "array",
                    "description": "2-3 mutually exclusive choices, recommended first; "
                    "the user may also answer freely.",
                    "items": option,
                },
            },
            "required": ["id", "header", "question", "options"],
            "additionalProperties": False,
        }
        return function_spec(
            self.name,
            f"Asks the user 1-{MAX_QUESTIONS} short multiple-choice questions and waits for the answers. "
            "Use it only for decisions you cannot make from the code or the conversation.",
            {"questions": {"type": "array", "items": question}},
            ["questions"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Validate, ask (or take the recommended options headless), answer as JSON."""
        a = parse_args(self.name, _Args, args)
        ids = [q.id for q in a.questions]
        if len(set(ids)) != len(ids):
            raise ToolError(
                f"invalid arguments for request_user_input: question ids must be unique, got {ids}"
            )
        questions = [
            Question(
                q.id, q.header, q.question, tuple(QuestionOption(o.label, o.description) for o in q.options)
            )
            for q in a.questions
        ]
        answers: dict[str, dict[str, list[str]]] = {}
        if ctx.ask_user is None:
            for q in questions:
                answers[q.id] = {"answers": [q.options[0].label, HEADLESS_NOTE]}
        else:
            try:
                given = ctx.ask_user(questions)
            except Exception as e:  # a broken prompt must not kill the turn
                raise ToolError(
                    f"request_user_input failed: the question prompt failed ({type(e).__name__}: {e})"
                ) from e
            if not isinstance(given, dict):
                raise ToolError(
                    "request_user_input failed: the question prompt returned "
                    f"{type(given).__name__}, not answers"
                )
            for q in questions:
                labels = _labels(given.get(q.id))
                answers[q.id] = {"answers": labels or [UNANSWERED_NOTE]}
        return ToolResult(json.dumps({"answers": answers}, ensure_ascii=False))

"""The chat's review picker, per profile: it opens after every submission (revisions included), Keep
planning asks for its note, an empty line chooses nothing, an approved revision is not approved
again, and an empty answer to `ask_user` is no answer (not the recommended option). In-process
chat (`run_repl`) with script cassettes through the real proxy; the pty test is beside this file."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.commands import run_command
from ctxscope.harness.events import PlanSubmitted
from ctxscope.harness.modes.plan import IMPLEMENT_PROMPT
from ctxscope.harness.modes.plan.texts import already_approved
from ctxscope.harness.repl import STILL_PLANNING, review_menu, run_repl
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.terminal_prompts import terminal_ask
from ctxscope.harness.tools import Question, QuestionOption
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.store.reader import read_recording
from tests.harness.harness_support import PINNED_CONTEXT, make_repo, write_script

PLAN = "# Goal\nAdd greet().\n"
REVISED = PLAN + "- and document it\n"


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"output": [{"function_call": {"name": name, "arguments": arguments}}]}


def _chat(
    repo: Path, tmp_path: Path, profile: str, responses: list[Any], lines: list[str]
) -> tuple[str, list[dict[str, Any]], list[Any]]:
    """Run the chat on `lines`: what it printed (prompts too), the request bodies, the events."""
    capture = tmp_path / f"{profile}.jsonl"
    options = AgentOptions(
        provider="script",
        script=write_script(tmp_path / f"{profile}.json", responses),
        cwd=repo,
        capture=capture,
        plan_profile=profile,
        context_overrides=dict(PINNED_CONTEXT),
    )
    events: list[Any] = []
    feed = iter(lines)
    err = io.StringIO()

    def read(prompt: str) -> str:
        err.write(prompt)
        return next(feed)

    with AgentRuntime(options, emit=events.append) as runtime:
        run_repl(runtime, read=read, err=err)
    bodies = [e.request_body for e in read_recording(capture).exchanges if e.endpoint == "responses"]
    return err.getvalue(), bodies, events


def _last_user_text(body: dict[str, Any]) -> str:
    item = body["input"][-1]
    return "".join(p.get("text", "") for p in item.get("content", []))


def test_knightcode_keep_planning_asks_for_its_note_and_reviews_the_revision(
    repo: Path, tmp_path: Path
) -> None:
    responses = [_call("submit_plan", plan=PLAN), _call("submit_plan", plan=REVISED), {"text": "done"}]
    # 3 = "Keep planning (optional note)", then its note, then 1 = Implement at the revision's picker.
    said, bodies, events = _chat(
        repo, tmp_path, "knightcode", responses, ["/plan add greet", "3", "also document it", "1", "/quit"]
    )
    assert said.count(review_menu("knightcode")) == 2
    assert [e.revision for e in events if isinstance(e, PlanSubmitted)] == [1, 2]
    assert "note (optional, Enter for none): " in said
    assert _last_user_text(bodies[1]) == "also document it"  # the note went to the model while planning
    assert _last_user_text(bodies[-1]) == IMPLEMENT_PROMPT


def test_knightcode_keep_planning_without_a_note_sends_nothing(repo: Path, tmp_path: Path) -> None:
    said, bodies, _ = _chat(
        repo, tmp_path, "knightcode", [_call("submit_plan", plan=PLAN)], ["/plan add greet", "3", "", "/quit"]
    )
    assert "note (optional, Enter for none): " in said
    assert STILL_PLANNING in said and len(bodies) == 1  # the submission ended the run; nothing more went


def test_claude_request_changes_reviews_the_revised_plan(repo: Path, tmp_path: Path) -> None:
    responses = [_call("exit_plan_mode", plan=PLAN), _call("exit_plan_mode", plan=REVISED), {"text": "done"}]
    said, bodies, events = _chat(
        repo, tmp_path, "claude", responses, ["/plan add greet", "2", "document it too", "1", "/quit"]
    )
    assert said.count(review_menu("claude")) == 2
    assert [e.revision for e in events if isinstance(e, PlanSubmitted)] == [1, 2]
    assert _last_user_text(bodies[-1]) == IMPLEMENT_PROMPT


def test_an_empty_line_keeps_planning_and_plan_reopens_the_picker(repo: Path, tmp_path: Path) -> None:
    answer = f"Here.\n<proposed_plan>\n{PLAN}</proposed_plan>\n"
    said, bodies, _ = _chat(
        repo,
        tmp_path,
        "codex",
        [{"text": answer}, {"text": "done"}],
        ["/plan add greet", "", "/plan", "1", "/quit"],
    )
    assert said.count(review_menu("codex")) == 2 and STILL_PLANNING in said
    assert f"plan revision 1:\n{PLAN}" in said
    assert len(bodies) == 2 and _last_user_text(bodies[1]) == IMPLEMENT_PROMPT


def test_an_approved_revision_is_not_approved_again(repo: Path, tmp_path: Path) -> None:
    answer = f"<proposed_plan>\n{PLAN}</proposed_plan>\n"
    options = AgentOptions(
        provider="script",
        script=write_script(tmp_path / "s.json", [{"text": answer}, {"text": "done"}, {"text": "again?"}]),
        cwd=repo,
        no_capture=True,
    )
    with AgentRuntime(options) as runtime:
        out = io.StringIO()
        run_command("/plan add greet", runtime, out)
        run_command("/plan approve 1", runtime, out)
        for again in ("/plan approve 1", "/plan approve", "/plan approve fresh"):
            with pytest.raises(ConfigError) as refused:
                run_command(again, runtime, out)
            assert str(refused.value) == already_approved(1)
        assert runtime.plan is not None and runtime.plan.state.approved == 1


def test_an_empty_answer_to_a_question_is_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    question = Question(
        "q", "question", "Which file?", (QuestionOption("a.py", "new"), QuestionOption("b.py", "old"))
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n2\nmy own\n"))
    assert terminal_ask([question]) == {}
    assert terminal_ask([question]) == {"q": "b.py"}
    assert terminal_ask([question]) == {"q": "my own"}
    assert json.dumps(terminal_ask([question])) == "{}"  # end of input: no answer either

"""Plan mode, claude profile, end to end through the real proxy with script cassettes.

The model may ask to plan (`enter_plan_mode`; the user consents, headless it is refused), presents the
plan with `exit_plan_mode(plan)` (the run ends there), each further planning turn carries a reminder,
and planning again after an implementation carries the re-entry reminder with the previous plan.
Review: approve (implement), request changes (a revision), reject (leave plan mode).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.context import classify_text
from ctxscope.harness.events import ModeChange, PlanSubmitted
from ctxscope.harness.modes.plan.controller import plan_file
from ctxscope.harness.modes.plan.texts import CLAUDE_ACTIVE_REMINDER, CLAUDE_PLAN_TEXT, IMPLEMENT_PROMPT
from ctxscope.harness.runtime import AgentRuntime
from ctxscope.harness.tools import ApprovalRequest
from tests.harness.harness_support import make_repo, run_agent, write_script

PLAN = "## Plan\n1. Add greet() in pkg/greet.py\n2. Test it\n"


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"output": [{"function_call": {"name": name, "arguments": arguments}}]}


def _reminders(items: list[dict[str, Any]]) -> list[tuple[str, str]]:
    found = []
    for item in items:
        for part in item.get("content", []):
            match = classify_text(part.get("text", ""), item.get("role", "any"))
            if match is not None and match.kind == "plan_mode_reminder":
                found.append((match.values["event"], match.values["text"]))
    return found


def _outputs(body: dict[str, Any]) -> list[str]:
    return [i["output"] for i in body["input"] if i["type"].endswith("_call_output")]


def test_the_model_asks_to_plan_headless_is_refused(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [_call("enter_plan_mode"), {"text": "doing it directly"}])
    run = run_agent(repo, script, ["refactor everything"], tmp_path / "cap.jsonl", plan_profile="claude")
    first, second = run.bodies()
    assert {"enter_plan_mode", "exit_plan_mode"} <= {t.get("name") for t in first["tools"]}
    assert "headless, so nobody can consent" in _outputs(second)[0]
    assert not any(isinstance(e, ModeChange) for e in run.events)


def test_consent_switches_mid_turn_and_exit_plan_mode_ends_the_run(repo: Path, tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    batch = {
        "output": [
            {"function_call": {"name": "exit_plan_mode", "arguments": {"plan": PLAN}}},
            {"function_call": {"name": "list_dir", "arguments": {"path": "."}}},
        ]
    }
    script = write_script(
        tmp_path / "s.json",
        [
            _call("enter_plan_mode"),
            batch,
            _call("exit_plan_mode", plan=PLAN + "3. docs\n"),
        ],
    )
    run = run_agent(
        repo,
        script,
        ["refactor", "also docs"],
        tmp_path / "cap.jsonl",
        plan_profile="claude",
        approver=approver,
    )
    assert [r.tool for r in asked] == ["enter_plan_mode"]
    first, second, third = run.bodies()
    # The Plan fragment follows the consenting call's output, before the next request of the turn.
    added = second["input"][len(first["input"]) :]
    assert [i["type"] for i in added][:2] == ["function_call", "function_call_output"]
    assert added[2]["role"] == "developer" and CLAUDE_PLAN_TEXT in added[2]["content"][0]["text"]
    assert run.results[0].stopped == "ended_by_mode"
    assert _outputs(third)[-1] == "not run: a plan was submitted"
    # The second planning turn starts with the reminder, then the user's words.
    assert _reminders(third["input"][len(second["input"]) :]) == [("active", CLAUDE_ACTIVE_REMINDER)]
    assert [e.revision for e in run.events if isinstance(e, PlanSubmitted)] == [1, 2]
    assert third["tools"] == first["tools"]


def test_approve_implements_and_planning_again_gets_the_reentry_reminder(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [_call("exit_plan_mode", plan=PLAN), {"text": "implemented"}, {"text": "thinking"}],
    )

    def commands(runtime: AgentRuntime, i: int) -> None:
        assert runtime.plan is not None
        if i == 1:
            approval = runtime.plan.approve()
            assert approval.turn is not None and approval.turn.final_text == "implemented"
            runtime.plan.enter()

    run = run_agent(
        repo,
        script,
        ["add greet", "now a farewell"],
        tmp_path / "cap.jsonl",
        plan=True,
        plan_profile="claude",
        commands=commands,
    )
    _, implement, again = run.bodies()
    assert implement["input"][-1]["content"][0]["text"] == IMPLEMENT_PROMPT
    added = again["input"][len(implement["input"]) :]
    ((event, text),) = _reminders(added)
    assert event == "reentered" and PLAN in text
    states = [
        json.loads(x)["payload"] for x in run.session_file.read_text().splitlines() if '"plan_state"' in x
    ]
    # A new cycle clears the approval and keeps the draft.
    assert (states[-1]["cycles"], states[-1]["approved"], states[-1]["revisions"]) == (2, None, [PLAN])


def test_every_reentry_says_what_happened_to_the_previous_plan(repo: Path, tmp_path: Path) -> None:
    # Cycle 1 is rejected (left without approval), cycle 2 is entered with /plan and implemented,
    # cycle 3 is entered by the model itself through enter_plan_mode, mid-turn.
    script = write_script(
        tmp_path / "s.json",
        [
            _call("exit_plan_mode", plan=PLAN),
            _call("exit_plan_mode", plan=PLAN + "3. docs\n"),
            {"text": "implemented"},
            _call("enter_plan_mode"),
            _call("exit_plan_mode", plan="## Plan\n1. farewell()\n"),
        ],
    )

    def commands(runtime: AgentRuntime, i: int) -> None:
        assert runtime.plan is not None
        if i == 1:
            runtime.plan.exit()  # reject
            runtime.plan.enter()
        if i == 2:
            runtime.plan.approve()

    run = run_agent(
        repo,
        script,
        ["add greet", "again, with docs", "now a farewell"],
        tmp_path / "cap.jsonl",
        plan=True,
        plan_profile="claude",
        commands=commands,
        approver=lambda _request: True,
    )
    bodies = run.bodies()
    told = [r for body in bodies for r in _reminders(body["input"])]
    replanned = [text for event, text in dict.fromkeys(told) if event == "replanned"]
    reentered = [text for event, text in dict.fromkeys(told) if event == "reentered"]
    assert len(replanned) == 1 and "without approving the previous plan (revision 1)" in replanned[0]
    assert PLAN in replanned[0]
    assert len(reentered) == 1 and "(revision 2) was approved and implemented" in reentered[0]
    assert PLAN + "3. docs\n" in reentered[0]
    assert [e.revision for e in run.events if isinstance(e, PlanSubmitted)] == [1, 2, 3]
    # The latest revision is kept in the session's plan file (owner-only), and the model is told where.
    kept = plan_file(run.session_id)
    assert kept.read_text() == "## Plan\n1. farewell()\n" and kept.stat().st_mode & 0o777 == 0o600
    assert f"The plan is kept in {kept}." in _outputs(bodies[1])[-1]

"""Plan mode, knightcode profile, end to end through the real proxy with script cassettes.

`submit_plan` replaces the draft and ends the run (later calls of the batch are not run), `ask_user`
headless takes the recommended option and records it as an assumption, the exact messages without a
draft, the stale revision, the fresh handoff with the plan inline, the compaction recovery message.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.commands import run_command
from ctxscope.harness.context import classify_text
from ctxscope.harness.events import Notice, PlanSubmitted, QuestionAnswered, QuestionAsked
from ctxscope.harness.modes.plan import NO_DRAFT, NO_PLAN_TO_APPROVE
from ctxscope.harness.modes.plan.enforcement import enforcement
from ctxscope.harness.modes.plan.texts import KNIGHT_PLAN_TEXT, PLAN_SUBMITTED_SIBLING
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.tools import still_planning
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.store.reader import read_recording
from tests.cli_support import run_cli
from tests.harness.harness_support import assert_calls_paired, make_repo, run_agent, write_script

PLAN = "# Goal\nAdd greet().\n\n## Changes\n- pkg/greet.py\n\n## Verify\n- pytest -q\n"


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"function_call": {"name": name, "arguments": arguments}}


def _submit(plan: str) -> dict[str, Any]:
    return {"output": [_call("submit_plan", plan=plan)]}


def _names(body: dict[str, Any]) -> list[str]:
    return [t.get("name", t.get("type")) for t in body["tools"]]


def _outputs(body: dict[str, Any]) -> list[str]:
    return [i["output"] for i in body["input"] if i["type"].endswith("_call_output")]


def test_planning_tools_are_declared_when_planning_first_starts_then_stay(repo: Path, tmp_path: Path) -> None:
    # The manual: "Sessions that never use planning gain no planning instructions or tool declarations".
    script = write_script(
        tmp_path / "s.json", [{"text": "hello"}, _submit(PLAN), {"text": "ok"}, {"text": "resumed"}]
    )

    def commands(runtime: AgentRuntime, i: int) -> None:
        assert runtime.plan is not None
        if i == 1:
            runtime.plan.enter()
        elif i == 2:
            runtime.plan.exit()

    run = run_agent(
        repo,
        script,
        ["hi", "plan it", "go on"],
        tmp_path / "cap.jsonl",
        plan_profile="knightcode",
        commands=commands,
    )
    first, planning, after = run.bodies()
    assert not {"submit_plan", "ask_user"} & set(_names(first))
    assert "collaboration_mode" not in json.dumps(first["input"])
    assert {"submit_plan", "ask_user"} <= set(_names(planning))
    assert after["tools"] == planning["tools"]  # leaving plan mode does not take them back
    assert [e.revision for e in run.events if isinstance(e, PlanSubmitted)] == [1]
    # A resumed session that has planned declares them from its first request.
    again = run_agent(repo, script, ["again"], tmp_path / "cap2.jsonl", session=run.session_id)
    assert again.bodies()[0]["tools"] == planning["tools"]
    never = run_agent(repo, write_script(tmp_path / "n.json", [{"text": "x"}]), ["hi"], tmp_path / "n.jsonl")
    assert not {"submit_plan", "ask_user"} & set(_names(never.bodies()[0]))


def test_a_submission_ends_the_run_and_blocks_the_rest_of_the_batch(repo: Path, tmp_path: Path) -> None:
    batch = {
        "output": [
            _call(
                "ask_user",
                question="Which file?",
                options=[
                    {"label": "pkg/greet.py", "description": "new"},
                    {"label": "README", "description": ""},
                ],
            ),
            {
                "custom_tool_call": {
                    "name": "apply_patch",
                    "input": "*** Begin Patch\n*** Add File: x\n+x\n*** End Patch",
                }
            },
            _call("submit_plan", plan=PLAN),
            _call("list_dir", path="."),
        ]
    }
    script = write_script(tmp_path / "s.json", [batch, {"text": "next turn"}])
    run = run_agent(
        repo, script, ["add greet", "hm"], tmp_path / "cap.jsonl", plan=True, plan_profile="knightcode"
    )
    first, second = run.results
    assert (first.stopped, first.steps) == ("ended_by_mode", 1)
    body = run.bodies()[1]
    assert_calls_paired(body["input"])
    outputs = _outputs(body)
    assert json.loads(outputs[0]) == {"answer": "pkg/greet.py", "assumed": True}
    assert outputs[1] == still_planning("apply_patch", enforcement("knightcode").submission)
    assert outputs[2].startswith("Plan submitted as revision 1.")
    assert outputs[3] == PLAN_SUBMITTED_SIBLING
    # The Knightcode planning rules went with the first request, in the mode fragment.
    assert KNIGHT_PLAN_TEXT in json.dumps(run.bodies()[0]["input"][:2], ensure_ascii=False).replace("\\n", "\n")
    states = [json.loads(x)["payload"] for x in run.session_file.read_text().splitlines() if '"plan_state"' in x]
    assumption = "Which file? → pkg/greet.py (recommended; no user to ask)"
    assert states[-1]["assumptions"] == [assumption]
    # The headless decision flows into the stored plan's Assumptions (the model's plan had none).
    assert states[-1]["revisions"] == [PLAN + f"\n## Assumptions\n- {assumption}\n"]
    asked = [e for e in run.events if isinstance(e, QuestionAsked)]
    answered = [e for e in run.events if isinstance(e, QuestionAnswered)]
    assert [e.tool for e in asked] == ["ask_user"] and asked[0].questions["question"] == "Which file?"  # type: ignore[call-overload,index]
    assert [(e.answers, e.assumed) for e in answered] == [({"answer": "pkg/greet.py", "assumed": True}, True)]


def test_exact_messages_without_a_draft_and_the_stale_revision(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [_submit(PLAN), _submit(PLAN + "- docs\n")])
    events: list[Any] = []
    out = io.StringIO()
    options = AgentOptions(
        provider="script", script=script, cwd=repo, no_capture=True, plan_profile="knightcode"
    )
    with AgentRuntime(options, emit=events.append) as runtime:
        with pytest.raises(ConfigError) as no_plan:
            run_command("/plan approve", runtime, out)
        assert str(no_plan.value) == NO_PLAN_TO_APPROVE
        run_command("/plan", runtime, out)
        run_command("/plan", runtime, out)
        assert [e.message for e in events if isinstance(e, Notice)][-1] == NO_DRAFT
        run_command("/plan add greet", runtime, out)
        run_command("/plan also docs", runtime, out)  # a typed message while planning revises
        with pytest.raises(ConfigError, match="revision 1 is not the latest plan"):
            run_command("/plan approve 1", runtime, out)
        assert runtime.plan is not None and runtime.plan.planning  # the refusal changed nothing
    assert [e.revision for e in events if isinstance(e, PlanSubmitted)] == [1, 2]


def test_plan_diff_says_what_it_compared(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [_submit(PLAN), _submit(PLAN)])
    events: list[Any] = []
    options = AgentOptions(provider="script", script=script, cwd=repo, no_capture=True, plan_profile="knightcode")
    with AgentRuntime(options, emit=events.append) as runtime:
        out = io.StringIO()
        run_command("/plan add greet", runtime, out)
        run_command("/plan diff", runtime, out)
        run_command("/plan the same again", runtime, out)
        run_command("/plan diff", runtime, out)
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert "no diff yet: 1 revision(s) so far; a diff compares the last two" in notices
    assert notices[-1] == "revisions 1 and 2 are identical: nothing changed"
    assert out.getvalue() == ""


def test_print_mode_and_a_fresh_session_with_the_plan_inline(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [_submit(PLAN)])
    base = ("agent", "--provider", "script", "--plan-profile", "knightcode")
    proc = run_cli(*base, "--script", str(script), "--plan", "-p", "add greet", "--no-capture", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == PLAN
    sid = proc.stderr.split("session: ")[1].split()[0]
    done = write_script(tmp_path / "d.json", [{"text": "implemented"}])
    capture = tmp_path / "c2.jsonl"
    approve = run_cli(
        *base,
        "--script",
        str(done),
        "--session",
        sid,
        "-p",
        "/plan approve fresh",
        "--capture",
        str(capture),
        cwd=repo,
    )
    assert approve.returncode == 0, approve.stderr
    assert approve.stdout == "implemented\n"
    (body,) = [e.request_body for e in read_recording(capture).exchanges]
    last = body["input"][-1]["content"][0]["text"]
    assert last == f"Implement this approved plan:\n\n{PLAN}"
    assert sid not in json.dumps(body["input"])


def test_compaction_carries_a_frozen_recovery_message(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [_submit(PLAN), {"text": "after compaction"}])

    def commands(runtime: AgentRuntime, i: int) -> None:
        if i == 1:
            assert runtime.agent is not None
            runtime.agent.reset_context()

    run = run_agent(
        repo,
        script,
        ["add greet", "go on"],
        tmp_path / "cap.jsonl",
        plan=True,
        plan_profile="knightcode",
        commands=commands,
    )
    first, second = run.bodies()
    added = second["input"][len(first["input"]) :]
    recovered = [
        m
        for i in added
        for p in i.get("content", [])
        if (m := classify_text(p.get("text", ""), i.get("role"))) and m.kind == "plan_mode_reminder"
    ]
    (match,) = recovered
    assert match.values["event"] == "recovery" and PLAN in match.values["text"]

"""Events the answer causes belong to the turn that produced them, and a mode event only where the
wire shows a switch.

Real captures of the harness (`ctxscope agent` through the recording proxy, script cassettes): a
`--plan -p` run is one request whose answer holds the plan; a resumed planning session's first
request re-materialises plan mode and the old plan (no switch, no submission); the knightcode fresh
handoff is recognised. The model's own goal update is told on the turn whose answer made it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.query import filter_turns
from tests.cli_support import run_cli
from tests.harness.harness_support import make_repo, write_script
from tests.inspector.exchange_support import Script, body, completed, fragment, initial_context, message

PLAN = "# Goal\nAdd greet().\n\n## Verify\n- pytest -q\n"


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _said(path: Path) -> list[list[str]]:
    return [[e.sentence for e in t.mode_events] for t in analyse_recording(path).turns]


def _agent(repo: Path, profile: str, script: Path, capture: Path, *args: str) -> str:
    """Run `ctxscope agent` headless; the session id it printed."""
    proc = run_cli(
        "agent",
        "--provider",
        "script",
        "--plan-profile",
        profile,
        "--script",
        str(script),
        "--capture",
        str(capture),
        *args,
        cwd=repo,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr.split("session: ")[1].split()[0]


def test_a_plan_print_run_shows_its_submission_on_its_only_request(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json", [{"text": f"Here.\n<proposed_plan>\n{PLAN}</proposed_plan>\n"}]
    )
    capture = tmp_path / "plan.jsonl"
    _agent(repo, "codex", script, capture, "--plan", "-p", "add greet")
    # one request, started in plan mode: no switch on the wire, one submission in its answer
    assert _said(capture) == [["plan submitted (revision 1)"]]
    (turn,) = analyse_recording(capture).turns
    assert turn.answer.plans == [PLAN] and turn.answer.text == "Here.\n"
    out = run_cli("diff", str(capture), "--turn", "1", "--no-color", env={"COLUMNS": "200"}).stdout
    assert "plan submitted (revision 1)" in out and "mode default → plan" not in out
    assert "    proposed plan\n      │ # Goal\n" in out


def test_a_resumed_planning_session_invents_no_switch_and_no_submission(repo: Path, tmp_path: Path) -> None:
    first = write_script(tmp_path / "s.json", [{"text": f"<proposed_plan>\n{PLAN}</proposed_plan>\n"}])
    sid = _agent(repo, "codex", first, tmp_path / "a.jsonl", "--plan", "-p", "add greet")
    later = write_script(
        tmp_path / "t.json", [{"text": f"<proposed_plan>\n{PLAN}- also docs\n</proposed_plan>\n"}]
    )
    resumed = tmp_path / "b.jsonl"
    _agent(repo, "codex", later, resumed, "--session", sid, "-p", "also the docs")
    analysis = analyse_recording(resumed)
    (turn,) = analysis.turns
    modes = [
        p.values.get("mode") for i in turn.turn.items for p in i.fragments if p.kind == "collaboration_mode"
    ]
    assert modes and modes[-1] == "plan", "the resumed request re-materialises plan mode"
    assert any("<proposed_plan>" in i.text for i in turn.turn.items), "and carries the old plan"
    # the old plan is revision 1: the resumed session's new plan is revision 2, said once, here
    assert _said(resumed) == [["plan submitted (revision 2)"]]


@pytest.mark.parametrize(("profile", "tool"), [("knightcode", "submit_plan"), ("claude", "exit_plan_mode")])
def test_the_fresh_handoff_of_knightcode_and_claude_is_recognised(
    repo: Path, tmp_path: Path, profile: str, tool: str
) -> None:
    submit: dict[str, Any] = {"output": [{"function_call": {"name": tool, "arguments": {"plan": PLAN}}}]}
    planned = tmp_path / "plan.jsonl"
    script = write_script(tmp_path / "s.json", [submit])
    sid = _agent(repo, profile, script, planned, "--plan", "-p", "greet")
    # a submission ends the run: its only request's answer is the call, and the event is there
    assert _said(planned) == [["plan submitted (revision 1)"]]
    fresh = tmp_path / "fresh.jsonl"
    done = write_script(tmp_path / "d.json", [{"text": "implemented"}])
    _agent(repo, profile, done, fresh, "--session", sid, "-p", "/plan approve fresh")
    assert _said(fresh) == [["implementing the approved plan (new thread)"]]


def test_tool_filter_and_goal_update_land_on_the_turn_whose_answer_made_them(
    tmp_path: Path, edge: Callable[[str], Path]
) -> None:
    s = Script()
    t1 = [*initial_context(), message("user", "/goal ship greet")]
    update = {
        "type": "function_call",
        "call_id": "g1",
        "name": "update_goal",
        "arguments": json.dumps({"status": "complete"}),
    }
    s.request(body(t1), response=completed("resp_1", [update]))
    t2 = [*t1, update, {"type": "function_call_output", "call_id": "g1", "output": "goal complete"}]
    s.request(body(t2), response=completed("resp_2"))
    path = s.write(tmp_path / "goal.jsonl")
    analysis = analyse_recording(path)
    # told on the turn whose answer made the call, not on the next request that carries it
    assert [[e.kind.value for e in t.goal_events] for t in analysis.turns] == [["completed"], []]
    doc = json.loads(run_cli("diff", str(path), "--format", "json").stdout)
    assert [[e["sentence"] for e in t["goal_events"]] for t in doc["turns"]] == [["goal completed"], []]
    text = run_cli("diff", str(path), "--no-color", env={"COLUMNS": "200"}).stdout
    assert "· goal completed" in text.split("turn 2")[0]
    assert filter_turns(analysis, "tool:update_goal") == [1]


def test_the_tool_filter_finds_built_in_tool_calls_in_the_answer(tmp_path: Path) -> None:
    s = Script()
    t1 = [*initial_context(), message("user", "fix a.py")]
    patch = {
        "type": "apply_patch_call",
        "call_id": "p1",
        "status": "completed",
        "operation": {"type": "update_file", "path": "a.py", "diff": "@@\n-x\n+y\n"},
    }
    s.request(body(t1), response=completed("resp_1", [patch]))
    t2 = [*t1, patch, {"type": "apply_patch_call_output", "call_id": "p1", "status": "completed"}]
    s.request(body(t2), response=completed("resp_2"))
    analysis = analyse_recording(s.write(tmp_path / "p.jsonl"))
    assert filter_turns(analysis, "tool:apply_patch") == [1]
    (call,) = analysis.turns[0].answer.tool_calls
    assert (call.kind, call.name) == ("apply_patch_call", "apply_patch") and '"path": "a.py"' in (
        call.text or ""
    )


def test_a_compaction_summary_quoting_the_plan_is_no_submission(tmp_path: Path) -> None:
    s = Script()
    meta = {"content-type": "application/json", "session-id": "s1"}
    t1 = [*initial_context(), _planning(), message("user", "plan greet")]
    proposal = message("assistant", f"<proposed_plan>\n{PLAN}</proposed_plan>\n")
    s.request(body(t1), response=completed("resp_1", [proposal]), headers=meta)
    prompt = message("user", "Summarise the conversation so far for a handoff.")
    summary = message("assistant", f"The plan so far:\n<proposed_plan>\n{PLAN}</proposed_plan>\n")
    compaction = {**meta, "x-codex-turn-metadata": json.dumps({"request_kind": "compaction"})}
    s.request(body([*t1, proposal, prompt], tools=[]), response=completed("resp_2", [summary]), headers=compaction)
    said = [[e.sentence for e in t.mode_events] for t in analyse_recording(s.write(tmp_path / "c.jsonl")).turns]
    assert said == [["plan submitted (revision 1)"], []]


def _planning() -> dict[str, Any]:
    return message("developer", fragment("collaboration_mode", mode="plan", text="Plan first."))


def _tool(name: str) -> dict[str, Any]:
    return {"type": "function", "name": name, "parameters": {"type": "object", "properties": {}}}


@pytest.mark.parametrize(
    ("planning", "tools", "submitted"),
    [
        (True, [], True),  # codex: a block while planning is the plan
        (False, [], False),  # codex outside plan mode: Codex parses no block
        (True, [_tool("exit_plan_mode")], False),  # claude submits with its tool: the block is text
        (True, [_tool("submit_plan")], False),  # knightcode likewise
    ],
)
def test_a_block_is_a_submission_only_in_the_protocol_of_the_request(
    tmp_path: Path, planning: bool, tools: list[dict[str, Any]], submitted: bool
) -> None:
    s = Script()
    t1 = [*initial_context(), *([_planning()] if planning else []), message("user", "plan greet")]
    answer = message("assistant", f"Here:\n<proposed_plan>\n{PLAN}</proposed_plan>\n")
    s.request(body(t1, tools=tools), response=completed("resp_1", [answer]))
    (turn,) = analyse_recording(s.write(tmp_path / "b.jsonl")).turns
    assert [e.sentence for e in turn.mode_events] == (["plan submitted (revision 1)"] if submitted else [])
    (item,) = turn.answer.items
    assert (item.plan is not None) == submitted
    assert ("<proposed_plan>" in (item.text or "")) == (not submitted)


def test_tool_submissions_count_once_per_answer_and_follow_the_harness_numbers(tmp_path: Path) -> None:
    s = Script()
    tools = [_tool("exit_plan_mode"), _tool("exec_command")]

    def exit_call(call_id: str) -> dict[str, Any]:
        return {"type": "function_call", "call_id": call_id, "name": "exit_plan_mode", "arguments": "{}"}

    def output(call_id: str, text: str) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": call_id, "output": text}

    t1 = [*initial_context(), _planning(), message("user", "plan greet")]
    s.request(body(t1, tools=tools), response=completed("resp_1", [exit_call("a"), exit_call("b")]))
    # The harness confirms revision 3 (two earlier revisions were made before this capture began).
    t2 = [
        *t1,
        exit_call("a"),
        exit_call("b"),
        output("a", "Plan submitted as revision 3. Stop here: the user reviews it."),
        output("b", "not run: a plan was submitted"),
        message("user", "shorter please"),
    ]
    s.request(body(t2, tools=tools), response=completed("resp_2", [exit_call("c")]))
    said = _said(s.write(tmp_path / "t.jsonl"))
    assert said == [
        ["plan submitted (revision 1)"],
        ["tool exit_plan_mode not run: a plan was submitted", "plan submitted (revision 4)"],
    ]


def test_only_the_first_block_of_a_turn_is_its_plan(tmp_path: Path) -> None:
    # As the harness (and Codex) take it: a turn's later blocks are not new revisions.
    s = Script()
    block = message("assistant", f"<proposed_plan>\n{PLAN}</proposed_plan>\n")
    call = {"type": "function_call", "call_id": "c1", "name": "list_dir", "arguments": "{}"}
    t1 = [*initial_context(), _planning(), message("user", "plan greet")]
    s.request(body(t1), response=completed("resp_1", [block, call]))
    t2 = [*t1, block, call, {"type": "function_call_output", "call_id": "c1", "output": "a.py"}]
    s.request(body(t2), response=completed("resp_2", [block]))
    t3 = [*t2, block, message("user", "shorter")]
    s.request(body(t3), response=completed("resp_3", [block]))
    assert _said(s.write(tmp_path / "o.jsonl")) == [
        ["plan submitted (revision 1)"],
        [],
        ["plan submitted (revision 2)"],
    ]

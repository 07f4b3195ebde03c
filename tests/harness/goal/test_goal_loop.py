"""/goal end to end: the real agent, the real proxy, script cassettes; assertions on the recorded requests.

The shapes are Codex 0.169's as observed (`codex-observed.md` §5): a user goal-status message, the
`goal_objective` item (a function-call output with no call id), a continuation message per goal
turn whose budget lines change, `turn_trigger: "goal"`, and the goal tools' one JSON shape.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.commands import run_command
from ctxscope.harness.context import classify_text
from ctxscope.harness.events import AgentEvent, GoalUpdated, Notice, TextDelta
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.store.reader import read_recording
from tests.harness.harness_support import (
    PINNED_CONTEXT,
    assert_calls_paired,
    make_repo,
    write_config,
    write_script,
)


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    return repo


def options(repo: Path, script: Path, capture: Path, **extra: Any) -> AgentOptions:
    return AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=capture,
        context_overrides=dict(PINNED_CONTEXT),
        **extra,
    )


def bodies(capture: Path) -> list[dict[str, Any]]:
    return [e.request_body for e in read_recording(capture).exchanges if e.endpoint == "responses"]


def kind(item: dict[str, Any]) -> str:
    """`goal_objective`, a fragment kind, `user: <text>`, or the item type."""
    if item.get("type") == "function_call_output" and item.get("name") == "goal_objective":
        return "goal_objective"
    if item.get("type") == "message":
        texts = [p.get("text", "") for p in item["content"]]
        kinds = [m.kind for m in (classify_text(t, item["role"]) for t in texts) if m is not None]
        if kinds:
            return f"{item['role']}[{','.join(kinds)}]"
        return f"{item['role']}: {texts[0]}"
    return str(item.get("type"))


def metadata(body: dict[str, Any]) -> dict[str, Any]:
    return dict(json.loads(body["client_metadata"]["x-codex-turn-metadata"]))


def continuation_budget(item: dict[str, Any]) -> dict[str, Any]:
    match = classify_text(item["content"][0]["text"], "user")
    assert match is not None and match.kind == "goal_continuation"
    return match.values


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"function_call": {"name": name, "arguments": arguments}}


def goal_command(runtime: AgentRuntime, line: str) -> tuple[Any, str]:
    out = io.StringIO()
    result = run_command(line, runtime, out)
    return result.turn, out.getvalue()


def test_goal_runs_turns_until_the_model_marks_it_complete(repo: Path, tmp_path: Path) -> None:
    usage = {"input_tokens": 1000, "output_tokens": 200, "total_tokens": 1200}
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "First stanza drafted.", "usage": usage},
            {"output": [call("update_goal", status="complete")], "usage": usage},
            {"text": "The haiku is written; 3600 tokens used.", "usage": usage},
        ],
    )
    events: list[AgentEvent] = []
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture), emit=events.append) as runtime:
        assert runtime.agent is not None
        turn, _ = goal_command(runtime, "/goal write a haiku")
        assert turn is not None and turn.final_text == "The haiku is written; 3600 tokens used."
        _, panel = goal_command(runtime, "/goal")
        session_file = runtime.agent.session.path
    sent = bodies(capture)
    assert len(sent) == 3, "complete → one more request for the report, then the loop stops"
    first = sent[0]["input"]
    # No user message: the base prompt (input[0]), the goal status, the initial context, the objective
    # item, a continuation (Codex 0.169's order).
    assert first[0]["role"] == "developer" and "instructions" not in sent[0]
    first = first[1:]
    kinds = [kind(i) for i in first]
    assert kinds[1].startswith("developer[skills_catalog,permissions"), kinds
    assert kinds[:1] + kinds[2:] == [
        "user[goal_status]",
        "user[agents_md,environment_context]",
        "goal_objective",
        "user[goal_continuation]",
    ]
    status = classify_text(first[0]["content"][0]["text"], "user")
    assert status is not None and status.values == {"objective": "write a haiku", "status": "active"}
    objective = first[3]
    assert objective["output"] == "write a haiku" and objective["namespace"] == "agent"
    assert "call_id" not in objective and objective["id"].startswith("fco_")
    assert "write a haiku" not in first[4]["content"][0]["text"], "the objective is not in the continuation"
    assert continuation_budget(first[4]) == {"tokens_used": 0, "token_budget": None, "tokens_remaining": None}
    # The next goal turn appends the reply and a fresh continuation with the new usage.
    second = sent[1]["input"][1:]
    assert second[: len(first)] == first
    assert [kind(i) for i in second[len(first) :]] == [
        "assistant: First stanza drafted.",
        "user[goal_continuation]",
    ]
    assert continuation_budget(second[-1])["tokens_used"] == 1200
    assert sum(kind(i) == "goal_objective" for i in sent[2]["input"]) == 1, "the objective goes once"
    # update_goal answers with Codex's JSON, a completion report included.
    output = json.loads(sent[2]["input"][-1]["output"])
    assert output["goal"]["status"] == "complete" and output["goal"]["objective"] == "write a haiku"
    assert set(output["goal"]) == {
        "threadId",
        "objective",
        "status",
        "tokensUsed",
        "timeUsedSeconds",
        "createdAt",
        "updatedAt",
    }
    assert output["remainingTokens"] is None and output["completionBudgetReport"]
    assert_calls_paired(sent[2]["input"])
    assert {metadata(b)["turn_trigger"] for b in sent} == {"goal"}
    assert [b["tools"] for b in sent[1:]] == [sent[0]["tools"]] * 2, "tools[] never changes"
    goal_tools = {t["name"]: t["parameters"] for t in sent[0]["tools"] if t["name"].endswith("_goal")}
    assert list(goal_tools) == ["get_goal", "create_goal", "update_goal"]
    assert goal_tools["get_goal"]["properties"] == {} and goal_tools["get_goal"]["required"] == []
    assert goal_tools["create_goal"]["required"] == ["objective"]
    assert goal_tools["create_goal"]["properties"]["token_budget"]["type"] == "integer"
    assert goal_tools["update_goal"]["properties"]["status"]["enum"] == ["complete", "blocked", "paused"]
    assert all(p["additionalProperties"] is False for p in goal_tools.values())
    # State: the session holds the goal; events told the front end each change.
    assert "status: complete" in panel and "tokens used: 3600" in panel
    updates = [e for e in events if isinstance(e, GoalUpdated)]
    assert [u.reason for u in updates] == ["user", "turn", "tool", "turn"]
    assert updates[-1].status == "complete" and updates[-1].tokens_used == 3600
    entries = [json.loads(line) for line in session_file.read_text().splitlines()]
    assert [e["payload"]["goal"]["status"] for e in entries if e["type"] == "goal"][-1] == "complete"


def test_goal_budget_spent_at_a_turn_end_stops_with_no_extra_request(repo: Path, tmp_path: Path) -> None:
    usage = {"input_tokens": 700, "output_tokens": 100, "total_tokens": 800}
    script = write_script(
        tmp_path / "s.json",
        [{"text": "step one", "usage": usage}, {"text": "step two", "usage": usage}, {"text": "never"}],
    )
    events: list[AgentEvent] = []
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture), emit=events.append) as runtime:
        assert runtime.agent is not None
        turn, _ = goal_command(runtime, "/goal --budget 1000 tidy the repo")
        assert turn is not None and turn.final_text == "step two"
        goal = runtime.agent.goals.current
        assert goal is not None and goal.status == "budget_limited" and goal.tokens_used == 1600
        session = runtime.agent.session_id
    sent = bodies(capture)
    assert len(sent) == 2
    assert continuation_budget(sent[0]["input"][-1]) == {
        "tokens_used": 0,
        "token_budget": 1000,
        "tokens_remaining": 1000,
    }
    assert continuation_budget(sent[1]["input"][-1]) == {
        "tokens_used": 800,
        "token_budget": 1000,
        "tokens_remaining": 200,
    }
    assert any(isinstance(e, Notice) and "goal budget spent: 1600 of 1000" in e.message for e in events)
    # Resume: the goal comes back from the session file as it was.
    script2 = write_script(tmp_path / "s2.json", [{"text": "unused"}])
    with AgentRuntime(options(repo, script2, tmp_path / "cap2.jsonl", session=session)) as runtime:
        assert runtime.agent is not None
        goal = runtime.agent.goals.current
        assert goal is not None and (goal.objective, goal.status, goal.tokens_used, goal.token_budget) == (
            "tidy the repo",
            "budget_limited",
            1600,
            1000,
        )


def test_create_goal_in_a_normal_turn_starts_goal_turns_after_it(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {"output": [call("create_goal", objective="make the tests pass", token_budget=30000)]},
            {"text": "Goal set; starting."},
            {"output": [call("update_goal", status="paused")]},
            {"text": "Paused as asked."},
            {"text": "never"},
        ],
    )
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture)) as runtime:
        assert runtime.agent is not None
        from ctxscope.harness.goal.runner import run_prompt

        result = run_prompt(runtime.agent, "keep at it until the tests pass")
        assert result.final_text == "Paused as asked."
        goal = runtime.agent.goals.current
        assert goal is not None and goal.status == "paused"
    sent = bodies(capture)
    assert len(sent) == 4, "paused by the model → the loop stops after that turn"
    # The objective item follows the create_goal output in the same turn, before the next request.
    assert [kind(i) for i in sent[1]["input"][-3:]] == [
        "function_call",
        "function_call_output",
        "goal_objective",
    ]
    created = json.loads(sent[1]["input"][-2]["output"])
    assert created["goal"]["status"] == "active" and created["goal"]["tokenBudget"] == 30000
    assert created["remainingTokens"] == 30000 and created["completionBudgetReport"] is None
    assert [metadata(b)["turn_trigger"] for b in sent] == ["user", "user", "goal", "goal"]
    assert kind(sent[2]["input"][-1]) == "user[goal_continuation]"
    assert not any(kind(i) == "user[goal_status]" for i in sent[-1]["input"]), "no user_goal message here"
    assert sum(kind(i) == "goal_objective" for i in sent[-1]["input"]) == 1


def test_interrupting_a_goal_turn_pauses_it_and_resume_tells_the_model(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [{"text": "a reply that gets cut", "chunks": 4}, {"output": [call("update_goal", status="complete")]}]
        + [{"text": "done"}],
    )
    armed = {"on": True}

    def emit(event: AgentEvent) -> None:
        if isinstance(event, TextDelta) and armed["on"]:
            armed["on"] = False
            raise KeyboardInterrupt

    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture), emit=emit) as runtime:
        assert runtime.agent is not None
        with pytest.raises(KeyboardInterrupt):
            goal_command(runtime, "/goal ship it")
        goal = runtime.agent.goals.current
        assert goal is not None and goal.status == "paused"
        turn, _ = goal_command(runtime, "/goal resume")
        assert turn is not None and turn.final_text == "done"
    sent = bodies(capture)
    tail = sent[1]["input"][len(sent[0]["input"]) :]
    assert [kind(i) for i in tail] == [
        "user[turn_aborted]",
        "user[goal_status]",
        "user[goal_status]",
        "user[goal_continuation]",
    ]
    statuses = [classify_text(i["content"][0]["text"], "user") for i in tail[1:3]]
    assert [s.values for s in statuses if s is not None] == [{"status": "paused"}, {"status": "active"}]


def test_bad_goal_input_is_one_line_and_sends_nothing(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "unused"}])
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture)) as runtime:
        for line, message in (
            ("/goal pause", "no goal is set: start one with /goal <objective>"),
            ("/goal resume", "no goal is set"),
            ("/goal clear", "no goal is set"),
            ("/goal --budget 0 tidy", "a goal budget must be a positive number of tokens, not 0"),
            ("/goal --budget lots tidy", "usage: /goal --budget TOKENS <objective>"),
        ):
            with pytest.raises(ConfigError, match=message) as caught:
                goal_command(runtime, line)
            assert "\n" not in str(caught.value)
        assert runtime.agent is not None and runtime.agent.goals.current is None
        session_file = runtime.agent.session.path
        runtime.agent.session.append("goal", {"goal": {"objective": "x", "status": "dancing"}})
    assert bodies(capture) == []
    # A corrupted goal entry: resuming stops with one line before any request.
    with pytest.raises(ConfigError, match="damaged goal entry") as caught:
        AgentRuntime(options(repo, script, tmp_path / "cap2.jsonl", session=str(session_file))).start()
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "cap2.jsonl").exists()


def test_headless_goal_runs_to_its_end_and_prints_the_answer(repo: Path, tmp_path: Path) -> None:
    from tests.cli_support import run_cli

    usage = {"input_tokens": 400, "output_tokens": 100, "total_tokens": 500}
    script = write_script(
        tmp_path / "s.json", [{"text": "halfway", "usage": usage}, {"text": "all done", "usage": usage}]
    )
    capture = tmp_path / "cap.jsonl"
    args = ("agent", "--provider", "script", "--script", str(script), "--capture", str(capture))
    proc = run_cli(*args, "-p", "/goal tidy the repo", "--goal-budget", "900", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "all done\n"
    assert "goal budget spent: 1000 of 900 tokens used" in proc.stderr
    assert [metadata(b)["turn_trigger"] for b in bodies(capture)] == ["goal", "goal"]
    bad = run_cli(*args, "-p", "/goal tidy", "--goal-budget", "0", cwd=repo)
    assert bad.returncode != 0 and "a goal budget must be a positive number of tokens" in bad.stderr
    assert "Traceback" not in bad.stderr
    stray = run_cli(*args, "-p", "tidy", "--goal-budget", "10", cwd=repo)
    assert stray.returncode != 0 and "--goal-budget goes with a goal" in stray.stderr


def test_the_inspector_puts_goal_turns_on_the_timeline(repo: Path, tmp_path: Path) -> None:
    from ctxscope.inspector.analysis import analyse_recording
    from ctxscope.inspector.reports.world import describe_changes

    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "one"},
            {"text": "two"},
            {"output": [call("update_goal", status="complete")]},
            {"text": "report"},
            {"text": "cut", "chunks": 4},
            {"text": "after resume"},
            {"output": [call("update_goal", status="paused")]},
            {"text": "ok"},
        ],
    )
    capture = tmp_path / "cap.jsonl"
    armed = {"on": False}

    def emit(event: AgentEvent) -> None:
        if isinstance(event, TextDelta) and armed["on"]:
            armed["on"] = False
            raise KeyboardInterrupt

    with AgentRuntime(options(repo, script, capture), emit=emit) as runtime:
        goal_command(runtime, "/goal write a haiku")
        armed["on"] = True
        with pytest.raises(KeyboardInterrupt):
            goal_command(runtime, "/goal draft a limerick")
        goal_command(runtime, "/goal resume")
    analysis = analyse_recording(capture)
    timeline = [s for t in analysis.turns for s in describe_changes(t.state_changes)]
    assert timeline == [
        "goal set: write a haiku",
        "goal continuation #1",
        "goal continuation #2",
        "goal continuation #3",
        "goal completed",
        "goal set: draft a limerick",
        "goal continuation #4",
        "goal paused",
        "goal resumed",
        "goal continuation #5",
        "goal continuation #6",
        "goal paused",
    ]
    for turn in analysis.turns:
        assert all(i.kind != "unknown" for i in turn.turn.items)
        assert not any("unrecognised" in note for note in turn.notes)
    objective = [i for i in analysis.turns[0].turn.items if i.kind == "goal_objective"]
    assert [i.label for i in objective] == ['goal_objective "write a haiku"']


def test_goal_turns_never_run_while_planning(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "unused"}])
    events: list[AgentEvent] = []
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture, plan=True), emit=events.append) as runtime:
        turn, _ = goal_command(runtime, "/goal ship the parser")
        assert turn is None
        assert runtime.agent is not None and runtime.agent.goals.current is not None
    assert bodies(capture) == []
    assert any(isinstance(e, Notice) and "goal turns do not run while planning" in e.message for e in events)


def test_ctrl_c_in_the_chat_says_it_paused_the_goal(repo: Path, tmp_path: Path) -> None:
    from ctxscope.harness.repl import run_repl

    script = write_script(tmp_path / "s.json", [{"text": "a reply that gets cut", "chunks": 4}, {"text": "hi"}])
    armed = {"on": True}

    def emit(event: AgentEvent) -> None:
        if isinstance(event, TextDelta) and armed["on"]:
            armed["on"] = False
            raise KeyboardInterrupt

    err = io.StringIO()
    lines = iter(["/goal ship it", "hello", "/quit"])
    with AgentRuntime(options(repo, script, tmp_path / "cap.jsonl"), emit=emit) as runtime:
        run_repl(runtime, read=lambda _p: next(lines), err=err)
    said = err.getvalue().splitlines()
    # The goal turn was interrupted: the chat says the goal is paused; the next, plain turn is not.
    assert said.count("turn aborted; the goal is paused (/goal resume continues it)") == 1
    assert "turn aborted" not in said

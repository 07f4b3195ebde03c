"""Loop behaviours and the seams later issues build on: /cd diffs, interrupted turns,
before-request hooks, a context reset (compaction), the mode consulted by the router."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.agent import Agent
from ctxscope.harness.events import AgentEvent, TextDelta, ToolCall
from ctxscope.harness.modes import DefaultMode
from ctxscope.harness.request import TurnRequest
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.session import SessionStore
from ctxscope.harness.session_context import SessionContext
from ctxscope.proxy.store.reader import read_recording
from tests.harness.harness_support import (
    PINNED_CONTEXT,
    assert_append_only,
    assert_calls_paired,
    labels,
    make_repo,
    run_agent,
    write_config,
    write_script,
)


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    return repo


def test_cd_appends_environment_and_agents_md_diffs(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}, {"text": "three"}])
    targets = {1: repo / "pkg", 2: outside}

    def cd(runtime: Any, i: int) -> None:
        if i in targets:
            runtime.agent.change_cwd(targets[i])

    run = run_agent(repo, script, ["a", "b", "c"], tmp_path / "cap.jsonl", commands=cd)
    bodies = run.bodies()
    assert_append_only(bodies)
    into_pkg = labels({"input": bodies[1]["input"][len(bodies[0]["input"]) :]}, repo)
    assert into_pkg[0] == 'assistant: "one"' and into_pkg[-1] == 'user: "b"'
    # Codex 0.169's grouping: AGENTS.md (user), permissions (developer; the writable roots follow
    # the cwd), then the whole environment_context (user).
    assert into_pkg[1:4] == [
        "user[<agents_md_replaced:$ROOT/pkg>]",
        "developer[<permissions>]",
        "user[<environment_context:cwd=$ROOT/pkg>]",
    ]
    text = bodies[1]["input"][len(bodies[0]["input"]) + 1 :]
    assert "Package code uses tabs." in str(text)
    leaving = labels({"input": bodies[2]["input"][len(bodies[1]["input"]) :]}, repo)
    assert any("<agents_md_removed" in label for label in leaving)
    # The tools followed: the session remembers the last cwd for a resume.
    assert SessionStore.open(run.session_id).load().world_state["cwd"] == str(outside)  # type: ignore[index]


def test_cd_expands_the_home_directory(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    script = write_script(tmp_path / "s.json", [{"text": "one"}])
    options = AgentOptions(provider="script", script=script, cwd=repo, no_capture=True)
    with AgentRuntime(options) as runtime:
        assert runtime.agent is not None
        assert runtime.agent.change_cwd(Path("~/repo/pkg")) == (repo / "pkg").resolve()
        assert runtime.agent.router.ctx.cwd == (repo / "pkg").resolve()


def test_interrupted_turn_is_recorded_and_told_to_the_model(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json", [{"text": "a long answer that gets cut", "chunks": 4}, {"text": "ok"}]
    )
    options = AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=tmp_path / "cap.jsonl",
        context_overrides=dict(PINNED_CONTEXT),
    )
    interrupt = {"armed": True}

    def emit(event: AgentEvent) -> None:
        if isinstance(event, TextDelta) and interrupt["armed"]:
            interrupt["armed"] = False
            raise KeyboardInterrupt

    with AgentRuntime(options, emit=emit) as runtime:
        assert runtime.agent is not None
        with pytest.raises(KeyboardInterrupt):
            runtime.agent.run_turn("first")
        assert runtime.agent.run_turn("second").final_text == "ok"
    bodies = [e.request_body for e in read_recording(tmp_path / "cap.jsonl").exchanges]
    tail = labels({"input": bodies[-1]["input"][len(bodies[0]["input"]) :]}, repo)
    assert tail == ["user[<turn_aborted>]", 'user: "second"']


def test_before_request_hook_and_context_reset(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}])
    seen: list[TurnRequest] = []

    def hook(agent: Any, request: TurnRequest) -> None:
        seen.append(request)
        request.headers["x-test-hook"] = str(len(seen))

    def setup(runtime: Any, i: int) -> None:
        if i == 0:
            runtime.agent.before_request.append(hook)
        else:
            runtime.agent.reset_context()

    run = run_agent(repo, script, ["a", "b"], tmp_path / "cap.jsonl", commands=setup)
    first, second = run.exchanges()
    assert len(seen) == 2 and first.request_headers["x-test-hook"] == "1"
    assert second.request_headers["x-codex-window-id"].endswith(":1")
    added = labels({"input": second.request_body["input"][len(first.request_body["input"]) :]}, repo)
    # After a reset the full context is rendered again (what compaction will build on).
    assert added[1:] == labels(first.request_body, repo)[1:3] + ['user: "b"']


def test_the_mode_lives_in_one_place(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "one"}])
    options = AgentOptions(provider="script", script=script, cwd=repo, no_capture=True)
    with AgentRuntime(options) as runtime:
        agent = runtime.agent
        assert agent is not None
        # Router, tool context and session context read the agent's one holder; nobody keeps a copy.
        assert agent.router.ctx.mode is agent.modes is agent.context.mode
        agent.set_mode(DefaultMode(name="review"))
        assert agent.router.mode == agent.mode.name == "review"
        agent.run_turn("hi")
        assert agent.router.mode == "review"
        # An agent whose parts hold different mode holders would drift apart: refused at construction.
        apart = SessionContext(agent.context.settings)
        with pytest.raises(ValueError, match="share one CurrentMode"):
            Agent(
                config=agent.config,
                client=agent.client,
                session=agent.session,
                context=apart,
                router=agent.router,
            )


def test_ctrl_c_during_a_tool_still_answers_the_call(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {"function_call": {"name": "list_dir", "arguments": {"path": "."}, "call_id": "call_x"}},
            {"text": "ok"},
        ],
    )
    options = AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=tmp_path / "cap.jsonl",
        context_overrides=dict(PINNED_CONTEXT),
    )
    armed = {"on": True}

    def emit(event: AgentEvent) -> None:
        if isinstance(event, ToolCall) and armed["on"]:
            armed["on"] = False
            raise KeyboardInterrupt

    with AgentRuntime(options, emit=emit) as runtime:
        assert runtime.agent is not None
        with pytest.raises(KeyboardInterrupt):
            runtime.agent.run_turn("first")
        runtime.agent.run_turn("second")
    last = [e.request_body for e in read_recording(tmp_path / "cap.jsonl").exchanges][-1]["input"]
    assert_calls_paired(last)
    (output,) = [i for i in last if i["type"] == "function_call_output"]
    assert output["call_id"] == "call_x" and output["output"].startswith("aborted")
    assert labels({"input": last}, repo)[-3:] == [
        "function_call_output",
        "user[<turn_aborted>]",
        'user: "second"',
    ]


def test_resume_answers_a_call_left_without_output(repo: Path, tmp_path: Path) -> None:
    first = run_agent(
        repo, write_script(tmp_path / "s1.json", [{"text": "one"}]), ["a"], tmp_path / "c1.jsonl"
    )
    store = SessionStore.open(first.session_id)
    store.append(
        "response_item",
        {"item": {"type": "function_call", "name": "list_dir", "arguments": "{}", "call_id": "call_lost"}},
    )
    store.close()  # this writer stops here, mid-step (as a killed agent or a failed write leaves it)
    second = run_agent(
        repo,
        write_script(tmp_path / "s2.json", [{"text": "two"}]),
        ["b"],
        tmp_path / "c2.jsonl",
        session=first.session_id,
    )
    (body,) = second.bodies()
    assert_calls_paired(body["input"])
    assert labels(body, repo)[-3:] == ["function_call list_dir", "function_call_output", 'user: "b"']
    # The call may have run: the model is told its result was not saved, not that it was aborted.
    assert body["input"][-2]["output"].startswith("result not saved: the session file ends before")


def test_a_mode_object_drives_router_and_context(repo: Path, tmp_path: Path) -> None:
    from dataclasses import dataclass, field

    @dataclass
    class PlanLike(DefaultMode):
        name: str = "plan"
        collaboration_mode: str | None = "plan"
        events: list[str] = field(default_factory=list)
        ended: list[str] = field(default_factory=list)

        def fragment_text(self) -> str:
            return "Plan first."

        def on_turn_start(self, agent: Any) -> None:
            self.events.append("start")

        def on_stream_event(self, agent: Any, event: Any) -> None:
            self.events.append(event.type)

        def on_turn_end(self, agent: Any, result: Any) -> None:
            self.ended.append(result.final_text)

    mode = PlanLike()
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "one"},
            {
                "function_call": {
                    "name": "update_plan",
                    "arguments": {"plan": [{"step": "x", "status": "pending"}]},
                }
            },
            {"text": "the plan"},
        ],
    )

    def switch(runtime: Any, i: int) -> None:
        if i == 1:
            runtime.agent.set_mode(mode)

    run = run_agent(repo, script, ["a", "b"], tmp_path / "cap.jsonl", commands=switch)
    first, second, third = run.bodies()
    added = labels({"input": second["input"][len(first["input"]) :]}, repo)
    assert added == ['assistant: "one"', "developer[<collaboration_mode:plan>]", 'user: "b"']
    assert "Plan first." in second["input"][-2]["content"][0]["text"]  # the mode's own text
    (output,) = [i for i in third["input"] if i["type"] == "function_call_output"]
    assert "not allowed in Plan mode" in output["output"]
    assert mode.events[0] == "start" and "response.completed" in mode.events
    assert mode.ended == ["the plan"]

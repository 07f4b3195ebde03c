"""Compaction end to end: the real agent and proxy, script cassettes, assertions on the recorded requests.

Codex 0.169's local compaction as observed (`codex-observed.md` §7): a compaction request = the
history + the compaction prompt, `tools: []`, `request_kind: "compaction"`, the window number
unchanged; the next request's window is rebuilt (kept user messages, the full initial context before
the last one, the summary), and the window number grows. The inspector explains the harness's
compactions with the same forensics it uses for Codex's.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.agent import Agent, user_message
from ctxscope.harness.commands import run_command
from ctxscope.harness.context import classify_text
from ctxscope.harness.errors import UpstreamError
from ctxscope.harness.events import AgentEvent, Compacted, Notice
from ctxscope.harness.modes import DefaultMode
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.proxy.store.reader import read_recording
from tests.cli_support import run_cli
from tests.harness.harness_support import PINNED_CONTEXT, make_repo, write_config, write_script

LIMIT = 20_000
BIG = {"input_tokens": 25_000, "output_tokens": 100, "total_tokens": 25_100}
SMALL = {"input_tokens": 900, "output_tokens": 50, "total_tokens": 950}


@pytest.fixture
def home(ctxscope_home: Path) -> Path:
    return ctxscope_home


def setup(tmp_path: Path, home: Path, extra: str = "") -> Path:
    repo = make_repo(tmp_path)
    write_config(home, tmp_path / "skills", f"model_auto_compact_token_limit = {LIMIT}\n{extra}")
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


def exchanges(capture: Path) -> list[Any]:
    return [e for e in read_recording(capture).exchanges if e.endpoint in ("responses", "responses/compact")]


def kind(item: dict[str, Any]) -> str:
    if item.get("type") == "message":
        texts = [p.get("text", "") for p in item["content"]]
        kinds = [m.kind for m in (classify_text(t, item["role"]) for t in texts) if m is not None]
        return f"{item['role']}[{','.join(kinds)}]" if kinds else f"{item['role']}: {texts[0]}"
    return str(item.get("type"))


def turn_metadata(body: dict[str, Any]) -> dict[str, Any]:
    return dict(json.loads(body["client_metadata"]["x-codex-turn-metadata"]))


def window_id(body: dict[str, Any]) -> str:
    return str(body["client_metadata"]["x-codex-window-id"]).rpartition(":")[2]


def test_automatic_compaction_before_a_turn_rebuilds_the_window(tmp_path: Path, home: Path) -> None:
    repo = setup(tmp_path, home)
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "Read the README.", "usage": SMALL},
            {"text": "It says hello.", "usage": BIG},
            {"text": "The user asked to read the README; it says hello.", "usage": SMALL},
            {"text": "Second answer.", "usage": SMALL},
            {"text": "Third answer.", "usage": SMALL},
        ],
    )
    events: list[AgentEvent] = []
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture), emit=events.append) as runtime:
        agent = runtime.agent
        assert agent is not None
        agent.run_turn("read the README")
        agent.run_turn("what does it say?")
        agent.run_turn("now summarise it")
        agent.change_cwd(Path("pkg"))
        agent.run_turn("look at pkg")
        session = agent.session_id
    _, first, compaction, second, third = [e.request_body for e in exchanges(capture)]
    # The compaction request: the history, then the prompt; no tools; same window.
    assert compaction["input"][:-1] == first["input"] + compaction["input"][len(first["input"]) : -1]
    assert kind(compaction["input"][-1]) == "user[compaction_prompt]" and "id" not in compaction["input"][-1]
    assert compaction["tools"] == []
    assert turn_metadata(compaction)["request_kind"] == "compaction"
    # One request builder: the compaction carries the turn's own metadata, its start time included.
    same = ("turn_id", "turn_started_at_unix_ms", "turn_trigger", "history_initialization", "sandbox_mode")
    assert {k: turn_metadata(compaction)[k] for k in same} == {k: turn_metadata(second)[k] for k in same}
    assert (window_id(first), window_id(compaction), window_id(second), window_id(third)) == (
        "0",
        "0",
        "1",
        "1",
    )
    # The new window replaces the history: context before the last user message, then the summary,
    # then (compaction before a turn) the new prompt.
    # input[0], the base prompt, is kept (Codex 0.169 sends no `instructions` field)
    assert second["input"][0] == first["input"][0] and "instructions" not in second
    kinds = [kind(i) for i in second["input"][1:]]
    assert kinds[1].startswith("developer[")
    assert kinds[:1] + kinds[2:] == [
        "user: read the README",
        "user[agents_md,environment_context]",
        "user: what does it say?",
        "user[compaction_summary]",
        "user: now summarise it",
    ]
    summary = classify_text(second["input"][5]["content"][0]["text"], "user")
    assert (
        summary is not None
        and summary.values["summary"] == "The user asked to read the README; it says hello."
    )
    assert not any(i.get("role") == "assistant" for i in second["input"]), "assistant items are dropped"
    # Later diffs are computed against the new window's state: only what changed is appended.
    added = third["input"][len(second["input"]) + 1 :]
    assert [kind(i) for i in added] == [
        "user[agents_md_replaced]",  # a cwd change appends three messages, in Codex's order
        "developer[permissions]",  # writable roots follow the cwd
        "user[environment_context]",
        "user: look at pkg",
    ]
    compacted = [e for e in events if isinstance(e, Compacted)]
    assert [(c.trigger, c.window) for c in compacted] == [("auto", 1)]
    # The inspector explains it like Codex's compactions.
    analysis = analyse_recording(capture)
    after = analysis.turn(4)
    assert after.change.kind == "compaction" and after.compaction is not None
    sentence = after.compaction.sentence
    assert sentence.startswith("compaction (request_kind compaction): ")
    assert "context re-materialised: " in sentence and " in 2 items)" in sentence
    assert "2 recent messages kept" in sentence
    assert "dropped" not in sentence  # the compaction prompt is not context the compaction dropped
    assert after.compaction.summary == "The user asked to read the README; it says hello."
    assert not any("unrecognised" in n for t in analysis.turns for n in t.notes)
    diff = run_cli("diff", str(capture), "--no-color")
    assert diff.returncode == 0 and "compaction (request_kind compaction)" in diff.stdout
    # Resume sends what the model saw last: the compacted window, not the old history.
    script2 = write_script(tmp_path / "s2.json", [{"text": "resumed", "usage": SMALL}])
    capture2 = tmp_path / "cap2.jsonl"
    with AgentRuntime(options(repo, script2, capture2, session=session)) as runtime:
        assert runtime.agent is not None and runtime.agent.window == 1
        runtime.agent.run_turn("and now?")
    (resumed,) = [e.request_body for e in exchanges(capture2)]
    assert resumed["input"][: len(third["input"])] == third["input"]
    assert window_id(resumed) == "1"


def test_mid_turn_compaction_puts_the_summary_last(tmp_path: Path, home: Path) -> None:
    repo = setup(tmp_path, home)
    list_dir = {"function_call": {"name": "list_dir", "arguments": {"path": "."}}}
    script = write_script(
        tmp_path / "s.json",
        [
            {"output": [list_dir], "usage": BIG},
            {"text": "Listing taken: README.md, pkg/.", "usage": SMALL},
            {"text": "Done.", "usage": SMALL},
        ],
    )
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture)) as runtime:
        assert runtime.agent is not None
        assert runtime.agent.run_turn("list the files").final_text == "Done."
    _, compaction, after = [e.request_body for e in exchanges(capture)]
    assert kind(compaction["input"][-2]) == "function_call_output"
    assert [kind(i) for i in after["input"]][1:] == [
        "developer[skills_catalog,permissions]",
        "user[agents_md,environment_context]",
        "user: list the files",
        "user[compaction_summary]",
    ]


def test_manual_compact_and_its_failures_leave_the_history_alone(tmp_path: Path, home: Path) -> None:
    repo = setup(tmp_path, home)
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "one", "usage": SMALL},
            {"output": [{"reasoning": "thinking only"}]},  # a compaction answer without text
            {"http_status": 500, "body": {"error": {"message": "boom"}}},
            {"http_status": 500, "body": {"error": {"message": "boom"}}},
            {"http_status": 500, "body": {"error": {"message": "boom"}}},
            {"text": "A short summary.", "usage": SMALL},
            {"text": "two", "usage": SMALL},
        ],
    )
    events: list[AgentEvent] = []
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture), emit=events.append) as runtime:
        agent = runtime.agent
        assert agent is not None
        agent.run_turn("first")
        before = list(agent.history)
        out = io.StringIO()
        run_command("/compact", runtime, out)  # no summary text
        run_command("/compact", runtime, out)  # HTTP 500 (after the client's retries)
        assert agent.history == before and agent.window == 0 and out.getvalue() == ""
        run_command("/compact", runtime, out)
        assert "compacted:" in out.getvalue() and agent.window == 1
        agent.run_turn("second")
    notices = [e.message for e in events if isinstance(e, Notice) and "compaction failed" in e.message]
    assert len(notices) == 2 and "no summary text" in notices[0] and "the history is unchanged" in notices[1]
    bodies = [e.request_body for e in exchanges(capture)]
    assert [turn_metadata(b)["request_kind"] for b in bodies] == ["turn"] + ["compaction"] * 5 + ["turn"]
    assert [kind(i) for i in bodies[-1]["input"]][-3:] == [
        "user: first",
        "user[compaction_summary]",
        "user: second",
    ]


def test_context_length_exceeded_compacts_once_and_retries(tmp_path: Path, home: Path) -> None:
    repo = setup(tmp_path, home)
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "one", "usage": SMALL},
            {"fail": {"code": "context_length_exceeded", "message": "too long"}},
            {"text": "Summary of turn one.", "usage": SMALL},
            {"text": "two", "usage": SMALL},
        ],
    )
    events: list[AgentEvent] = []
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture), emit=events.append) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn("first")
        assert runtime.agent.run_turn("second").final_text == "two"
    kinds = [turn_metadata(e.request_body)["request_kind"] for e in exchanges(capture)]
    assert kinds == ["turn", "turn", "compaction", "turn"]
    assert [(c.trigger, c.window) for c in events if isinstance(c, Compacted)] == [("context_length", 1)]


def test_remote_compaction_posts_to_responses_compact(tmp_path: Path, home: Path) -> None:
    repo = setup(tmp_path, home, 'compaction = "remote"')
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "one", "usage": SMALL},
            {"text": "Remote summary of the work so far."},
            {"text": "two", "usage": SMALL},
        ],
    )
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture)) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn("first")
        assert runtime.agent.compact() is True
        runtime.agent.run_turn("second")
    endpoints = [e.endpoint for e in exchanges(capture)]
    assert endpoints == ["responses", "responses/compact", "responses"]
    first, remote, after = [e.request_body for e in exchanges(capture)]
    assert remote["input"] == first["input"] + remote["input"][len(first["input"]) :]
    assert kind(after["input"][-2]) == "assistant: Remote summary of the work so far."
    assert window_id(after) == "1"
    assert analyse_recording(capture).turn(3).compaction is not None


def test_compact_from_the_command_line_with_a_session(tmp_path: Path, home: Path) -> None:
    repo = setup(tmp_path, home)
    script = write_script(tmp_path / "s.json", [{"text": "one", "usage": SMALL}])
    with AgentRuntime(options(repo, script, tmp_path / "cap.jsonl")) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn("first")
        session = runtime.agent.session_id
    script2 = write_script(tmp_path / "s2.json", [{"text": "Summary from the CLI.", "usage": SMALL}])
    capture = tmp_path / "cap2.jsonl"
    args = ("agent", "--provider", "script", "--script", str(script2), "--capture", str(capture))
    proc = run_cli(*args, "-p", "/compact", "--session", session, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "compacted:" in proc.stdout
    (body,) = [e.request_body for e in exchanges(capture)]
    assert turn_metadata(body)["request_kind"] == "compaction" and body["tools"] == []


@dataclass
class Recovering(DefaultMode):
    """A mode that carries a frozen message into every new window (as plan mode's recovery does)."""

    name: str = "recovering"

    def on_compaction(self, agent: Agent) -> Sequence[dict[str, Any]]:
        return [user_message(f"<reminder>window {agent.window}: keep the draft</reminder>")]


def test_the_modes_items_follow_the_summary_and_an_oversized_context_stops_clearly(
    tmp_path: Path, home: Path
) -> None:
    repo = setup(tmp_path, home, "model_context_window = 22000")
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "one", "usage": BIG},
            {"text": "Summary one."},
            {"text": "two", "usage": BIG},
            {"http_status": 400, "body": {"error": {"message": "bad"}}},  # the next compaction fails
        ],
    )
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture)) as runtime:
        agent = runtime.agent
        assert agent is not None
        agent.set_mode(Recovering())
        agent.run_turn("first")
        agent.run_turn("second")
        with pytest.raises(UpstreamError, match="is over gpt-test's window") as caught:
            agent.run_turn("third")
        assert "\n" not in str(caught.value)
    second = [e.request_body for e in exchanges(capture)][2]
    assert [kind(i) for i in second["input"]][-3:] == [
        "user[compaction_summary]",
        "user: <reminder>window 1: keep the draft</reminder>",
        "user: second",
    ]


def test_remote_compaction_v2_ends_the_input_with_a_trigger(tmp_path: Path, home: Path) -> None:
    repo = setup(tmp_path, home, 'compaction = "remote_v2"')
    compaction = {"type": "compaction", "encrypted_content": "opaque-summary"}
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "one", "usage": SMALL},
            {"item": compaction, "usage": SMALL},
            {"text": "two", "usage": SMALL},
        ],
    )
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture)) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn("first")
        run_command("/compact", runtime, io.StringIO())
        runtime.agent.run_turn("second")
    recorded = exchanges(capture)
    first, trigger, after = [e.request_body for e in recorded]
    assert trigger["input"][:-1] == first["input"] + trigger["input"][len(first["input"]) : -1]
    assert trigger["input"][-1] == {"type": "compaction_trigger"}
    assert recorded[1].request_headers.get("x-codex-beta-features") == "remote_compaction_v2"
    kinds = [kind(i) for i in after["input"]]
    assert kinds[1:] == [
        "developer[skills_catalog,permissions]",
        "user[agents_md,environment_context]",
        "user: first",
        "compaction",
        "user: second",
    ]
    report = analyse_recording(capture).turn(3).compaction
    assert report is not None and report.trigger == "compaction_trigger"
    assert [i.kind for i in report.summary_items] == ["compaction"]


def test_a_real_compaction_while_planning_ends_with_the_frozen_plan_recovery(
    tmp_path: Path, home: Path
) -> None:
    repo = setup(tmp_path, home)
    draft = "Looked around.\n<proposed_plan>\n# Add greet\n1. write greet()\n2. test it\n</proposed_plan>"
    script = write_script(
        tmp_path / "s.json",
        [{"text": draft, "usage": SMALL}, {"text": "Summary: a plan for greet() was drafted."}],
    )
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture, plan=True)) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn("add greet")
        assert runtime.agent.compact() is True
        window = runtime.agent.history
    assert [kind(i) for i in window][-2:] == ["user[compaction_summary]", "developer[plan_mode_reminder]"]
    recovery = classify_text(window[-1]["content"][0]["text"], "developer")
    assert recovery is not None and recovery.values["event"] == "recovery"
    assert "write greet()" in recovery.values["text"]


def test_a_compaction_inside_a_goal_turn_is_built_as_that_turn_s_request(tmp_path: Path, home: Path) -> None:
    repo = setup(tmp_path, home)
    complete = {"function_call": {"name": "update_goal", "arguments": {"status": "complete"}}}
    script = write_script(
        tmp_path / "s.json",
        [
            {"text": "Step one done.", "usage": BIG},
            {"text": "The goal is to tidy up; step one is done.", "usage": SMALL},  # the compaction
            {"output": [complete], "usage": SMALL},
            {"text": "Tidy.", "usage": SMALL},
        ],
    )
    capture = tmp_path / "cap.jsonl"
    with AgentRuntime(options(repo, script, capture)) as runtime:
        result = run_command("/goal tidy up", runtime, io.StringIO())
        assert result.turn is not None and result.turn.final_text == "Tidy."
    first, compaction, second, _third = [e.request_body for e in exchanges(capture)]
    assert turn_metadata(compaction)["request_kind"] == "compaction"
    same = ("turn_id", "turn_started_at_unix_ms", "turn_trigger")
    assert {k: turn_metadata(compaction)[k] for k in same} == {k: turn_metadata(second)[k] for k in same}
    assert turn_metadata(compaction)["turn_trigger"] == "goal" == turn_metadata(first)["turn_trigger"]

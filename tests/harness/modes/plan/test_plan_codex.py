"""Plan mode, codex profile, end to end through the real proxy with script cassettes.

Assertions are on the recorded requests: where the `<collaboration_mode>` fragments land (first turn:
inside the initial developer message; a switch: its own developer message before the user message;
leaving: the Default fragment), tools[] identical in both modes, the call-time gate (also inside a
batch), the `<proposed_plan>` block stripped from what is shown and kept in the history, the
approval flows (same thread, fresh thread with the plan in a file), and state across processes.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.commands import run_command
from ctxscope.harness.events import (
    AssistantMessage,
    ModeChange,
    Notice,
    PlanApproved,
    PlanDelta,
    PlanSubmitted,
    TextDelta,
)
from ctxscope.harness.modes.plan import IMPLEMENT_PROMPT, NO_DRAFT, NO_PLAN_TO_APPROVE, PlanState
from ctxscope.harness.modes.plan.enforcement import enforcement
from ctxscope.harness.modes.plan.texts import CODEX_PLAN_TEXT
from ctxscope.harness.repl import review_menu, run_repl
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.tools import still_planning
from ctxscope.harness.tools.gate import UPDATE_PLAN_IN_PLAN_MODE
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.home import sessions_dir
from ctxscope.proxy.store.reader import read_recording
from tests.cli_support import run_cli, run_cli_process
from tests.harness.harness_support import (
    PINNED_CONTEXT,
    assert_append_only,
    assert_calls_paired,
    assert_golden,
    labels,
    make_repo,
    run_agent,
    write_script,
)

PLAN = "# Add greet\n\n1. Add `greet(name)` to `pkg/greet.py`.\n2. Test it in `tests/test_greet.py`.\n"
ANSWER = f"I read the repo.\n<proposed_plan>\n{PLAN}</proposed_plan>\nSay the word and I implement it."
VISIBLE = "I read the repo.\nSay the word and I implement it."


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _texts(item: dict[str, Any]) -> list[str]:
    return [part.get("text", "") for part in item.get("content", [])]


def _collab(item: dict[str, Any]) -> list[str]:
    return [t for t in _texts(item) if t.startswith("<collaboration_mode>")]


def _context_message(body: dict[str, Any]) -> dict[str, Any]:
    """The initial developer context message (the one with the permissions fragment), wherever the
    base prompt sits (`instructions` or a developer message of its own before it)."""
    return next(
        i
        for i in body["input"]
        if i.get("role") == "developer" and any(t.startswith("<permissions") for t in _texts(i))
    )


def _plan_states(session_file: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in session_file.read_text().splitlines()]
    return [e["payload"] for e in lines if e["type"] == "plan_state"]


def test_plan_first_turn_streams_the_plan_apart_and_keeps_tools(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": ANSWER, "chunks": 9}])
    run = run_agent(repo, script, ["add a greet function"], tmp_path / "cap.jsonl", plan=True)
    (body,) = run.bodies()
    # The Plan fragment is a part of the initial developer message, and only there.
    developer = _context_message(body)
    assert developer["role"] == "developer"
    (fragment,) = _collab(developer)
    assert CODEX_PLAN_TEXT in fragment
    assert sum(len(_collab(i)) for i in body["input"]) == 1
    assert_golden("plan_first_turn", labels(body, repo))
    # What is shown: the text without the block; the block as plan deltas and one submission.
    shown = "".join(e.delta for e in run.events if isinstance(e, TextDelta))
    assert shown == VISIBLE
    assert "".join(e.delta for e in run.events if isinstance(e, PlanDelta)) == PLAN
    assert [e.text for e in run.events if isinstance(e, AssistantMessage)] == [VISIBLE]
    assert [(e.revision, e.plan) for e in run.events if isinstance(e, PlanSubmitted)] == [(1, PLAN)]
    assert run.results[0].final_text == ANSWER  # the turn result keeps the model's words
    assert _plan_states(run.session_file)[-1]["revisions"] == [PLAN]
    # tools[] is the same as in a session that never plans.
    plain = run_agent(repo, script, ["hi"], tmp_path / "plain.jsonl")
    assert plain.bodies()[0]["tools"] == body["tools"]
    assert not any(_collab(i) for i in plain.bodies()[0]["input"])


def test_switching_mid_thread_appends_the_fragment_alone_and_once(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "hello"}, {"text": "exploring"}, {"text": ANSWER}])

    def commands(runtime: AgentRuntime, i: int) -> None:
        if i == 1:
            assert runtime.plan is not None
            runtime.plan.enter()

    run = run_agent(repo, script, ["hi", "plan greet", "go on"], tmp_path / "cap.jsonl", commands=commands)
    first, second, third = run.bodies()
    assert_append_only([first, second, third])
    assert not any(_collab(i) for i in first["input"])  # -p style: no fragment before any mode
    added = second["input"][len(first["input"]) :]
    assert [i.get("role") for i in added] == ["assistant", "developer", "user"]
    assert _texts(added[1]) == _collab(added[1]) and CODEX_PLAN_TEXT in _collab(added[1])[0]
    assert _texts(added[2]) == ["plan greet"]
    # A second planning turn adds nothing but the prompt.
    assert [i.get("role") for i in third["input"][len(second["input"]) :]] == ["assistant", "user"]
    assert [e.to for e in run.events if isinstance(e, ModeChange)] == ["plan"]


def test_implement_appends_the_default_fragment_then_the_plain_request(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": ANSWER}])
    events: list[Any] = []
    run = run_agent(repo, script, ["add greet"], tmp_path / "cap.jsonl", plan=True)
    done = write_script(tmp_path / "d.json", [{"text": "done"}])
    with _resume(repo, done, run.session_id, tmp_path / "cap2.jsonl", events) as runtime:
        assert runtime.plan is not None and runtime.plan.planning  # resume restored plan mode
        approval = runtime.plan.approve(1)
    assert approval.turn is not None and approval.turn.final_text == "done"
    planned = run.bodies()[0]
    (body,) = [e.request_body for e in read_recording(tmp_path / "cap2.jsonl").exchanges]
    added = body["input"][len(planned["input"]) :]
    # The whole answer with its tags, the Default fragment alone, then the plain request.
    assert added[0]["role"] == "assistant" and _texts(added[0]) == [ANSWER]
    assert added[1]["role"] == "developer" and _texts(added[1]) == _collab(added[1])
    assert "# Collaboration mode: Default" in _collab(added[1])[0]
    # Like every message the harness injects, it carries an id (msg_…, as Codex's do).
    assert added[2]["id"].startswith("msg_")
    assert [{k: v for k, v in i.items() if k != "id"} for i in added[2:]] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": IMPLEMENT_PROMPT}]}
    ]
    assert body["tools"] == planned["tools"]
    assert any(isinstance(e, PlanApproved) and e.revision == 1 and not e.fresh for e in events)
    state = _plan_states(run.session_file)[-1]
    assert (state["approved"], state["active"]) == (1, False)


def test_fresh_implementation_reads_the_plan_from_a_file(
    repo: Path, tmp_path: Path, ctxscope_home: Path
) -> None:
    script = write_script(tmp_path / "s.json", [{"text": ANSWER}])
    run = run_agent(repo, script, ["add greet"], tmp_path / "cap.jsonl", plan=True)
    done = write_script(tmp_path / "d.json", [{"text": "implemented"}])
    with _resume(repo, done, run.session_id, tmp_path / "cap2.jsonl", []) as runtime:
        assert runtime.plan is not None
        original = runtime.agent.session_id if runtime.agent else ""
        approval = runtime.plan.approve(fresh=True)
        assert runtime.agent is approval.agent and runtime.plan.agent is approval.agent
    assert approval.turn is not None and approval.turn.final_text == "implemented"
    assert approval.agent.session_id != original
    (body,) = [e.request_body for e in read_recording(tmp_path / "cap2.jsonl").exchanges]
    # A new thread: the normal first layout with the Default fragment in the developer message,
    # then one plain sentence pointing at the approved plan; nothing of the old thread.
    assert body["prompt_cache_key"] != run.bodies()[0]["prompt_cache_key"]
    metadata = json.loads(body["client_metadata"]["x-codex-turn-metadata"])
    assert metadata["history_initialization"] == "cleared"  # as Codex sends it (codex-observed §4.4)
    assert "# Collaboration mode: Default" in _collab(_context_message(body))[0]
    assert ANSWER not in json.dumps(body)
    (path,) = (ctxscope_home / "attachments").glob("*/approved-plan.md")
    assert path.read_text(encoding="utf-8") == PLAN
    assert _texts(body["input"][-1]) == [f"Read the approved plan in {path} and implement it."]
    # The original session stays resumable, approved and out of plan mode.
    assert _plan_states(run.session_file)[-1]["approved"] == 1
    assert (
        _plan_states(approval.agent.session.path)[-1] == PlanState(revisions=[PLAN], approved=1).model_dump()
    )


def test_the_gate_refuses_at_call_time_inside_a_batch(repo: Path, tmp_path: Path) -> None:
    batch = {
        "output": [
            {"function_call": {"name": "read_file", "arguments": {"path": str(repo / "README.md")}}},
            {
                "custom_tool_call": {
                    "name": "apply_patch",
                    "input": "*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch",
                }
            },
            {
                "function_call": {
                    "name": "update_plan",
                    "arguments": {"plan": [{"step": "a", "status": "pending"}]},
                }
            },
            {"function_call": {"name": "exec_command", "arguments": {"cmd": "echo looked", "login": False}}},
        ]
    }
    script = write_script(tmp_path / "s.json", [batch, {"text": ANSWER}])
    run = run_agent(repo, script, ["plan it"], tmp_path / "cap.jsonl", plan=True)
    first, second = run.bodies()
    assert first["tools"] == second["tools"]
    items = second["input"]
    assert_calls_paired(items)
    outputs = [i["output"] for i in items if i["type"].endswith("_call_output")]
    assert "hello" in outputs[0]
    assert outputs[1] == still_planning("apply_patch", enforcement("codex").submission)
    assert outputs[2] == UPDATE_PLAN_IN_PLAN_MODE
    assert "looked" in outputs[3]
    assert not (repo / "x.txt").exists()


def _resume(repo: Path, script: Path, session: str, capture: Path, events: list[Any]) -> AgentRuntime:
    options = AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=capture,
        session=session,
        context_overrides=dict(PINNED_CONTEXT),
    )
    return AgentRuntime(options, emit=events.append)


# ---- print mode and a second process ----------------------------------------------------------


def _cli(repo: Path, script: Path, *args: str) -> Any:
    return run_cli("agent", "--provider", "script", "--script", str(script), *args, cwd=repo)


def test_print_mode_prints_exactly_the_plan_and_a_second_process_approves(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": ANSWER}])
    proc = _cli(repo, script, "--plan", "-p", "add greet", "--capture", str(tmp_path / "c1.jsonl"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == PLAN
    sid = proc.stderr.split("session: ")[1].split()[0]
    assert f'--session {sid} -p "/plan approve 1"' in proc.stderr
    # The same through /plan TASK, without --plan.
    again = _cli(repo, script, "-p", "/plan add greet", "--no-capture")
    assert (again.returncode, again.stdout) == (0, PLAN)

    stale = _cli(repo, script, "--session", sid, "-p", "/plan approve 2", "--no-capture")
    assert stale.returncode != 0 and stale.stdout == ""
    assert stale.stderr.strip().splitlines()[-1] == (
        'error: revision 2 is not the latest plan (revision 1); review it with /plan and approve with "/plan approve 1"'
    )
    done_script = write_script(tmp_path / "d.json", [{"text": "greet added"}])
    capture = tmp_path / "c2.jsonl"
    # The approval comes from another process (the real command), as a person would run it.
    done = run_cli_process(
        "agent",
        "--provider",
        "script",
        "--script",
        str(done_script),
        "--session",
        sid,
        "-p",
        "/plan approve 1",
        "--capture",
        str(capture),
        cwd=repo,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "greet added\n"
    (body,) = [e.request_body for e in read_recording(capture).exchanges]
    texts = [t for i in body["input"] for t in _texts(i)]
    assert ANSWER in texts and texts[-1] == IMPLEMENT_PROMPT  # the plan is in context
    # Approving again finds the plan already approved and out of plan mode: the latest is still 1.
    assert _cli(repo, done_script, "--session", sid, "-p", "/plan approve 3", "--no-capture").returncode != 0


def test_json_mode_emits_the_plan_events(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": ANSWER}])
    proc = _cli(repo, script, "--plan", "-p", "add greet", "--json", "--no-capture")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert "plan_delta" in kinds and kinds.index("plan_submitted") < kinds.index("turn_completed")
    submitted = next(e for e in events if e["type"] == "plan_submitted")
    assert (submitted["revision"], submitted["plan"]) == (1, PLAN)
    assert events[-1]["final_text"] == VISIBLE
    assert "<proposed_plan>" not in "".join(e.get("delta", "") for e in events if e["type"] == "text_delta")


def test_approve_without_a_draft_and_a_corrupted_state_fail_in_one_line(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "just talk"}])
    proc = _cli(repo, script, "-p", "hi", "--no-capture")
    sid = proc.stderr.split("session: ")[1].split()[0]
    none = _cli(repo, script, "--session", sid, "-p", "/plan approve", "--no-capture")
    assert none.returncode != 0 and none.stderr.strip().splitlines()[-1] == f"error: {NO_PLAN_TO_APPROVE}"
    # A plan state this version cannot read: one line naming the file, and no request at all.
    path = sessions_dir() / f"{sid}.jsonl"
    last = json.loads(path.read_text().splitlines()[-1])
    bad = {
        **last,
        "id": "e99999-bad",
        "parent_id": last["id"],
        "type": "plan_state",
        "payload": {"revisions": "x"},
    }
    before = path.read_text()
    path.write_text(before + json.dumps(bad) + "\n")
    capture = tmp_path / "c.jsonl"
    broken = _cli(repo, script, "--session", sid, "-p", "go on", "--capture", str(capture))
    assert broken.returncode != 0
    (line,) = [x for x in broken.stderr.splitlines() if x.startswith("error:")]
    assert str(path) in line and "plan state is malformed" in line and "Traceback" not in broken.stderr
    assert not capture.exists() or read_recording(capture).exchanges == []
    assert path.read_text() == before + json.dumps(bad) + "\n"  # input never modified


def test_resume_and_fork_restore_plan_mode_without_reapplying_it(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": ANSWER}])
    run = run_agent(repo, script, ["add greet"], tmp_path / "cap.jsonl", plan=True)
    talk = write_script(tmp_path / "t.json", [{"text": "thinking about it"}])
    resumed = run_agent(
        repo, talk, ["also a farewell"], tmp_path / "r.jsonl", session=run.session_id, plan=True
    )
    (body,) = resumed.bodies()
    added = body["input"][len(run.bodies()[0]["input"]) :]
    assert [i.get("role") for i in added] == ["assistant", "user"]  # still planning: nothing re-sent
    assert any(isinstance(e, Notice) and "ignored for a resumed session" in e.message for e in resumed.events)
    forked = run_agent(repo, talk, ["x"], tmp_path / "f.jsonl", fork=run.session_id)
    assert forked.session_id != run.session_id
    assert _plan_states(forked.session_file)[-1]["revisions"] == [PLAN]
    assert _plan_states(forked.session_file)[-1]["active"] is True
    (fbody,) = forked.bodies()
    # The fork holds the resumed turn too; it goes on planning without a new fragment.
    assert [i.get("role") for i in fbody["input"][len(body["input"]) :]] == ["assistant", "user"]


def test_two_plans_in_one_turn_and_an_unclosed_block(repo: Path, tmp_path: Path) -> None:
    two = ANSWER + "\n<proposed_plan>\n# Other\n</proposed_plan>\n"
    unclosed = "Thinking.\n<proposed_plan>\n# Half a plan\n"
    script = write_script(tmp_path / "s.json", [{"text": two, "chunks": 11}, {"text": unclosed, "chunks": 5}])
    run = run_agent(repo, script, ["plan", "again"], tmp_path / "cap.jsonl", plan=True)
    submitted = [e for e in run.events if isinstance(e, PlanSubmitted)]
    assert [(e.revision, e.plan) for e in submitted] == [(1, PLAN)]
    notices = [e.message for e in run.events if isinstance(e, Notice)]
    assert any("only the first one of a turn is the plan" in n for n in notices)
    assert any("was not closed" in n for n in notices)
    shown = [e.text for e in run.events if isinstance(e, AssistantMessage)]
    assert "# Other" in shown[0] and shown[1] == unclosed


def test_plan_command_reports_no_draft_then_diffs_revisions(repo: Path, tmp_path: Path) -> None:
    revised = ANSWER.replace("2. Test it", "2. Document it.\n3. Test it")
    script = write_script(tmp_path / "s.json", [{"text": ANSWER}, {"text": revised}])
    events: list[Any] = []
    out = io.StringIO()
    options = AgentOptions(provider="script", script=script, cwd=repo, no_capture=True)
    with AgentRuntime(options, emit=events.append) as runtime:
        run_command("/plan", runtime, out)  # enters
        run_command("/plan", runtime, out)  # planning, nothing submitted yet
        run_command("/plan add greet", runtime, out)
        run_command("/plan also document it", runtime, out)
        run_command("/plan diff", runtime, out)
        with pytest.raises(ConfigError, match="bad /plan approve argument 'now'"):
            run_command("/plan approve now", runtime, out)
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert NO_DRAFT in notices
    assert [e.revision for e in events if isinstance(e, PlanSubmitted)] == [1, 2]
    diff = out.getvalue()
    assert diff.startswith("--- revision 1\n+++ revision 2\n")
    assert "+2. Document it." in diff and "-2. Test it" in diff


def test_the_chat_announces_default_mode_and_reviews_a_submitted_plan(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "hello"}, {"text": ANSWER}, {"text": "done"}])
    capture = tmp_path / "cap.jsonl"
    options = AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=capture,
        announce_mode=True,
        context_overrides=dict(PINNED_CONTEXT),
    )
    lines = iter(["hi", "/plan add greet", "1", "/quit"])
    err = io.StringIO()
    with AgentRuntime(options) as runtime:
        run_repl(runtime, read=lambda _p: next(lines), err=err)
    assert review_menu("codex") in err.getvalue()
    first, second, third = [e.request_body for e in read_recording(capture).exchanges]
    # Like the Codex TUI: the Default fragment is in the first developer message already.
    assert "# Collaboration mode: Default" in _collab(_context_message(first))[0]
    switch = second["input"][len(first["input"]) :]
    assert [i.get("role") for i in switch] == ["assistant", "developer", "user"]
    assert CODEX_PLAN_TEXT in _collab(switch[1])[0]
    # 1 at the review picker = implement: the Default fragment, then the plain request.
    implement = third["input"][len(second["input"]) :]
    assert [i.get("role") for i in implement] == ["assistant", "developer", "user"]
    assert "# Collaboration mode: Default" in _collab(implement[1])[0]
    assert _texts(implement[2]) == [IMPLEMENT_PROMPT]


def test_compaction_carries_the_rules_and_the_draft_into_the_new_window(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": ANSWER}, {"text": "still here"}])

    def commands(runtime: AgentRuntime, i: int) -> None:
        if i == 1:
            assert runtime.agent is not None
            runtime.agent.reset_context()

    capture = tmp_path / "cap.jsonl"
    run = run_agent(repo, script, ["add greet", "go on"], capture, plan=True, commands=commands)
    first, second = run.bodies()
    added = second["input"][len(first["input"]) :]
    recovery = [t for i in added for t in _texts(i) if t.startswith('<plan_mode_reminder event="recovery">')]
    (text,) = recovery
    assert CODEX_PLAN_TEXT in text and PLAN in text
    # The new window re-renders the Plan fragment (still planning) and the inspector names the message.
    assert sum(len(_collab(i)) for i in added) == 1
    said = [e.sentence for t in analyse_recording(capture).turns for e in t.mode_events]
    assert "plan recovery message (rules and plan carried over a compaction)" in said
    assert not any(s.startswith("mode ") for s in said[1:])


def test_an_unknown_plan_profile_is_a_one_line_error(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "unused"}])
    proc = _cli(repo, script, "--plan-profile", "cursor", "-p", "hi", "--no-capture")
    assert proc.returncode != 0 and proc.stdout == ""
    assert proc.stderr.strip() == "error: unknown plan profile 'cursor': use one of codex, claude, knightcode"

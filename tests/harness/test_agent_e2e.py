"""The agent end to end: real proxy (script cassette + recorder), real tools, real files.

Every assertion is on the requests the proxy recorded, read back with `ctxscope.proxy.store.read_recording`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.errors import StreamError, UpstreamError
from ctxscope.harness.events import Notice
from ctxscope.harness.session import SessionStore
from ctxscope.proxy.errors import ConfigError
from tests.harness.harness_support import (
    SKILL_TEXT,
    assert_append_only,
    assert_calls_paired,
    assert_golden,
    labels,
    make_repo,
    run_agent,
    write_config,
    write_script,
)

LIST = {"function_call": {"name": "list_dir", "arguments": {"path": "."}}}


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    return repo


def test_first_request_layout_matches_golden(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"output": [{"reasoning": "look"}, LIST]}, {"text": "Hi!"}])
    run = run_agent(repo, script, ["say hello with $greet"], tmp_path / "cap.jsonl")
    bodies = run.bodies()
    assert len(bodies) == 2
    assert_golden("first_turn", labels(bodies[0], repo))
    assert_golden("first_turn_second_request", labels(bodies[1], repo))
    assert run.results[0].final_text == "Hi!"


def test_request_fields_are_codex_shaped(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "ok"}])
    run = run_agent(repo, script, ["hello"], tmp_path / "cap.jsonl")
    (exchange,) = run.exchanges()
    body, headers = exchange.request_body, {k.lower(): v for k, v in exchange.request_headers.items()}
    assert exchange.url.endswith("/v1/responses")
    assert body["model"] == "gpt-test"
    # Codex 0.169's placement: no `instructions` field, the base prompt is input[0] (developer).
    assert "instructions" not in body
    assert body["input"][0]["role"] == "developer"
    assert body["input"][0]["content"][0]["text"].startswith("You are ctxscope's coding agent")
    assert body["tool_choice"] == "auto" and body["store"] is False and body["stream"] is True
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["prompt_cache_key"] == run.session_id
    assert [t["name"] for t in body["tools"]][:2] == ["exec_command", "write_stdin"]
    assert headers["session-id"] == headers["thread-id"] == run.session_id
    assert headers["originator"] == "ctxscope"
    assert headers["user-agent"].startswith("ctxscope/")
    assert json.loads(headers["x-codex-turn-metadata"])["request_kind"] == "turn"
    assert body["client_metadata"]["x-codex-window-id"] == f"{run.session_id}:0"


def test_agents_md_and_skill_items(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "ok"}])
    run = run_agent(repo, script, ["please $greet me"], tmp_path / "cap.jsonl")
    items = run.bodies()[0]["input"]
    _base_prompt, developer, context_user, prompt, skill = items
    assert developer["role"] == "developer"
    assert any("greet: Greet the user by name" in p["text"] for p in developer["content"])
    agents = context_user["content"][0]["text"]
    assert f"# AGENTS.md instructions for {repo}" in agents and "Run the tests before you finish." in agents
    assert "Package code uses tabs." not in agents  # pkg/AGENTS.md is below cwd
    assert prompt["content"][0]["text"] == "please $greet me"
    assert skill["role"] == "user" and SKILL_TEXT.split("---\n")[-1].strip() in skill["content"][0]["text"]


def test_later_requests_append_only_and_pair_every_call(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {"output": [LIST, {"function_call": {"name": "read_file", "arguments": {"path": "README.md"}}}]},
            {"text": "first done"},
            {"output": [{"function_call": {"name": "grep_files", "arguments": {"pattern": "hello"}}}]},
            {"text": "second done"},
        ],
    )
    run = run_agent(repo, script, ["look around", "now grep"], tmp_path / "cap.jsonl")
    bodies = run.bodies()
    assert len(bodies) == 4
    assert_append_only(bodies)
    for body in bodies:
        assert_calls_paired(body["input"])
    outputs = [i for i in bodies[1]["input"] if i["type"] == "function_call_output"]
    assert "README.md" in outputs[0]["output"] and "hello" in outputs[1]["output"]
    # The second turn adds only its prompt (nothing in the world changed): no context re-render.
    added = bodies[2]["input"][len(bodies[1]["input"]) :]
    assert labels({"input": added}, repo) == ['assistant: "first done"', 'user: "now grep"']


def test_changed_agents_md_appends_replacement(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}])

    def edit(runtime: object, i: int) -> None:
        if i == 1:
            (repo / "AGENTS.md").write_text("Never run the tests.\n", encoding="utf-8")

    run = run_agent(repo, script, ["a", "b"], tmp_path / "cap.jsonl", commands=edit)
    first, second = run.bodies()
    assert_append_only([first, second])
    added = second["input"][len(first["input"]) :]
    assert labels({"input": added}, repo) == [
        'assistant: "one"',
        "user[<agents_md_replaced:$ROOT>]",
        'user: "b"',
    ]
    assert "Never run the tests." in added[1]["content"][0]["text"]


def test_model_switch_keeps_history_and_appends_fragment(
    repo: Path, tmp_path: Path, ctxscope_home: Path
) -> None:
    (tmp_path / "other.md").write_text("Other model instructions.\n", encoding="utf-8")
    write_config(
        ctxscope_home,
        tmp_path / "skills",
        extra=f'[models."gpt-other"]\ninstructions_file = "{tmp_path / "other.md"}"\n',
    )
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}])

    def switch(runtime: object, i: int) -> None:
        if i == 1:
            runtime.agent.switch_model("gpt-other")  # type: ignore[attr-defined]

    run = run_agent(repo, script, ["a", "b"], tmp_path / "cap.jsonl", commands=switch)
    first, second = run.bodies()
    assert (first["model"], second["model"]) == ("gpt-test", "gpt-other")
    # input[0] keeps the first model's base prompt; the new one travels in the switch fragment.
    assert "instructions" not in second and second["input"][0] == first["input"][0]
    assert_append_only([first, second])
    added = second["input"][len(first["input"]) :]
    assert labels({"input": added}, repo)[1].startswith("developer[<model_switch")
    assert "Other model instructions." in added[1]["content"][0]["text"]
    entries = SessionStore.open(run.session_id).entries()
    assert any(e.type == "model_switch" and e.payload["to"] == "gpt-other" for e in entries)


def test_instructions_field_placement_is_a_config_choice(
    repo: Path, tmp_path: Path, ctxscope_home: Path
) -> None:
    (tmp_path / "other.md").write_text("Other model instructions.\n", encoding="utf-8")
    write_config(
        ctxscope_home,
        tmp_path / "skills",
        extra='instructions_placement = "field"\n'
        f'[models."gpt-other"]\ninstructions_file = "{tmp_path / "other.md"}"\n',
    )
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}])

    def switch(runtime: object, i: int) -> None:
        if i == 1:
            runtime.agent.switch_model("gpt-other")  # type: ignore[attr-defined]

    run = run_agent(repo, script, ["a", "b"], tmp_path / "cap.jsonl", commands=switch)
    first, second = run.bodies()
    assert first["instructions"].startswith("You are ctxscope's coding agent")
    assert second["instructions"] == "Other model instructions.\n"
    # No base-prompt message: input[0] is the context developer message.
    assert not labels(first, repo)[0].startswith("developer[<instructions>")
    assert_append_only([first, second])


def test_model_switch_before_the_first_request_sends_no_switch_fragment(
    repo: Path, tmp_path: Path, ctxscope_home: Path
) -> None:
    write_config(ctxscope_home, tmp_path / "skills")
    script = write_script(tmp_path / "s.json", [{"text": "one"}])

    def switch(runtime: object, i: int) -> None:
        runtime.agent.switch_model("gpt-other")  # type: ignore[attr-defined]

    run = run_agent(repo, script, ["a"], tmp_path / "cap.jsonl", commands=switch)
    (body,) = run.bodies()
    assert body["model"] == "gpt-other"
    assert not any("model_switch" in label for label in labels(body, repo))
    entries = SessionStore.open(run.session_id).entries()
    assert SessionStore.open(run.session_id).load().model == "gpt-other"
    assert any(e.type == "model_switch" and e.payload["to"] == "gpt-other" for e in entries)


def test_model_switch_with_unreadable_instructions_keeps_the_old_model(
    repo: Path, tmp_path: Path, ctxscope_home: Path
) -> None:
    write_config(
        ctxscope_home,
        tmp_path / "skills",
        extra=f'[models."gpt-other"]\ninstructions_file = "{tmp_path / "missing.md"}"\n',
    )
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}])

    def switch(runtime: object, i: int) -> None:
        if i == 1:
            with pytest.raises(ConfigError, match="missing.md"):
                runtime.agent.switch_model("gpt-other")  # type: ignore[attr-defined]

    run = run_agent(repo, script, ["a", "b"], tmp_path / "cap.jsonl", commands=switch)
    first, second = run.bodies()
    assert first["model"] == second["model"] == "gpt-test"
    assert second["input"][0] == first["input"][0]
    assert not any("model_switch" in label for label in labels(second, repo))


def test_resume_sends_only_diffs(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s1.json", [{"output": [LIST]}, {"text": "one"}])
    first = run_agent(repo, script, ["a"], tmp_path / "cap1.jsonl")
    script2 = write_script(tmp_path / "s2.json", [{"text": "two"}])
    second = run_agent(repo, script2, ["b"], tmp_path / "cap2.jsonl", session=first.session_id)
    assert second.session_id == first.session_id
    last_before = first.bodies()[-1]["input"]
    (resumed,) = second.bodies()
    assert resumed["input"][: len(last_before)] == last_before
    added = resumed["input"][len(last_before) :]
    assert labels({"input": added}, repo) == ['assistant: "one"', 'user: "b"']
    assert resumed["prompt_cache_key"] == first.session_id


@pytest.mark.parametrize("how", ["session", "fork"])
def test_model_flag_on_a_resume_switches_the_model_as_slash_model_does(
    repo: Path, tmp_path: Path, how: str
) -> None:
    script1 = write_script(tmp_path / "s1.json", [{"text": "one"}])
    first = run_agent(repo, script1, ["a"], tmp_path / "c1.jsonl")
    script2 = write_script(tmp_path / "s2.json", [{"text": "two"}])
    resume: dict[str, Any] = {how: first.session_id, "model": "gpt-other"}
    second = run_agent(repo, script2, ["b"], tmp_path / "c2.jsonl", **resume)
    (body,) = second.bodies()
    assert first.bodies()[0]["model"] == "gpt-test" and body["model"] == "gpt-other"
    assert any("model_switch" in label for label in labels(body, repo))
    assert SessionStore.open(second.session_id).load().model == "gpt-other"


def test_fork_copies_to_new_session(repo: Path, tmp_path: Path) -> None:
    first = run_agent(
        repo, write_script(tmp_path / "s1.json", [{"text": "one"}]), ["a"], tmp_path / "c1.jsonl"
    )
    forked = run_agent(
        repo,
        write_script(tmp_path / "s2.json", [{"text": "two"}]),
        ["b"],
        tmp_path / "c2.jsonl",
        fork=first.session_id,
    )
    assert forked.session_id != first.session_id
    (body,) = forked.bodies()
    assert body["prompt_cache_key"] == forked.session_id
    assert labels(body, repo)[-3:] == ['user: "a"', 'assistant: "one"', 'user: "b"']
    assert len(SessionStore.open(first.session_id).load().history) == 5  # the original is untouched


def test_invalid_json_arguments_get_an_output(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {"function_call": {"name": "read_file", "arguments": "{not json", "call_id": "call_bad"}},
            {"text": "sorry"},
        ],
    )
    run = run_agent(repo, script, ["read"], tmp_path / "cap.jsonl")
    second = run.bodies()[1]["input"]
    assert_calls_paired(second)
    (output,) = [i for i in second if i["type"] == "function_call_output"]
    assert output["call_id"] == "call_bad" and "JSON" in output["output"]
    assert run.results[0].final_text == "sorry"


def test_dropped_stream_is_retried(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "partial", "cut": True}, {"text": "whole"}])
    run = run_agent(repo, script, ["go"], tmp_path / "cap.jsonl")
    first, second = run.bodies()
    assert first == second  # the same request, sent again
    assert run.results[0].final_text == "whole"
    assert any(isinstance(e, Notice) and "retrying" in e.message for e in run.events)


def test_stream_that_keeps_dropping_fails_clearly_and_keeps_the_session(
    repo: Path, tmp_path: Path, ctxscope_home: Path
) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "x", "cut": True}] * 3)
    with pytest.raises(StreamError, match="before response.completed.*gave up after 3 attempts"):
        run_agent(repo, script, ["go"], tmp_path / "cap.jsonl")
    (path,) = (ctxscope_home / "sessions").glob("*.jsonl")
    state = SessionStore.open(str(path)).load()
    assert labels({"input": state.history}, Path("/nowhere"))[-1] == 'user: "go"'
    # The same session resumes and finishes the task.
    script2 = write_script(tmp_path / "s2.json", [{"text": "done now"}])
    again = run_agent(repo, script2, ["retry"], tmp_path / "cap2.jsonl", session=str(path))
    assert again.results[0].final_text == "done now"


def test_rate_limit_then_success(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {
                "http_status": 429,
                "body": {"error": {"message": "slow down", "code": "rate_limit_exceeded"}},
                "headers": {"retry-after": "0"},
            },
            {"text": "finally"},
        ],
    )
    run = run_agent(repo, script, ["go"], tmp_path / "cap.jsonl")
    assert [e.status for e in run.exchanges()] == [429, 200]
    assert run.results[0].final_text == "finally"


def test_insufficient_quota_is_not_retried(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {"http_status": 429, "body": {"error": {"message": "quota", "code": "insufficient_quota"}}},
            {"text": "never"},
        ],
    )
    with pytest.raises(UpstreamError, match="insufficient_quota.*billing"):
        run_agent(repo, script, ["go"], tmp_path / "cap.jsonl")


def test_context_length_exceeded_is_actionable(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json", [{"fail": {"code": "context_length_exceeded", "message": "long"}}]
    )
    with pytest.raises(UpstreamError, match="context window.*/new"):
        run_agent(repo, script, ["go"], tmp_path / "cap.jsonl")


def test_max_steps_bounds_the_loop(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"output": [LIST]}] * 3)
    run = run_agent(repo, script, ["loop"], tmp_path / "cap.jsonl", max_steps=2)
    assert run.results[0].stopped == "max_steps" and len(run.bodies()) == 2
    assert_calls_paired(SessionStore.open(run.session_id).load().history)


def test_malformed_skill_is_a_notice_not_a_failure(repo: Path, tmp_path: Path) -> None:
    broken = tmp_path / "skills" / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_bytes(b"no front matter at all \xff\n")
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}])
    run = run_agent(repo, script, ["a $greet", "b"], tmp_path / "cap.jsonl")
    notices = [e.message for e in run.events if isinstance(e, Notice)]
    assert len(notices) == 1 and "broken" in notices[0]  # told once, not on every request
    first = run.bodies()[0]
    assert labels(first, repo)[-1] == "user[<selected_skill:greet>]"  # the good skill still works


def test_non_utf8_agents_md_starts_the_agent_with_one_notice(repo: Path, tmp_path: Path) -> None:
    (repo / "AGENTS.md").write_bytes(b"Run the tests before you finish. Caf\xe9.\n")
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}])
    run = run_agent(repo, script, ["a", "b"], tmp_path / "cap.jsonl")
    notices = [e.message for e in run.events if isinstance(e, Notice)]
    assert len(notices) == 1 and "AGENTS.md" in notices[0] and "UTF-8" in notices[0]
    agents = run.bodies()[0]["input"][2]["content"][0]["text"]
    assert "Caf\ufffd." in agents


def test_global_agents_md_from_the_ctxscope_home(repo: Path, tmp_path: Path, ctxscope_home: Path) -> None:
    (ctxscope_home / "AGENTS.md").write_text("Global: answer in English.\n", encoding="utf-8")
    script = write_script(tmp_path / "s.json", [{"text": "ok"}])
    run = run_agent(repo, script, ["hi"], tmp_path / "cap.jsonl")
    agents = run.bodies()[0]["input"][2]["content"][0]["text"]
    assert agents.index("Global: answer in English.") < agents.index("Run the tests before you finish.")

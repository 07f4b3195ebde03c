"""`ctxscope resend`: a recorded request sent again, edited, to a real loopback upstream through the
harness's provider and capture proxy; the answers set beside the recorded one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope.demo import run_demo
from ctxscope.proxy.store import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, function_call, response_stream, text_message, usage
from tests.cli_support import run_cli


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo session (7 turns), recorded by the harness through its capture proxy."""
    root = tmp_path_factory.mktemp("demo")
    return run_demo(root / "work", root / "demo.jsonl").recording


def _config(tmp_path: Path, url: str) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(f'[providers.local]\nbase_url = "{url}/v1"\n')  # no env_key: sends no key
    return config


def test_an_edited_request_goes_out_and_the_answers_are_compared(recording: Path, tmp_path: Path) -> None:
    original = read_recording(recording).model_requests()[0].request_body
    capture = tmp_path / "resend.jsonl"
    with FakeUpstream() as upstream:
        upstream.reply(
            SseReply(response_stream(text_message("I would rather ask first."), usage=usage(2000, 9)))
        )
        upstream.reply(SseReply(response_stream(function_call("exec_command", {"cmd": "ls -R"}))))
        result = run_cli(
            "resend", str(recording), "--turn", "1", "--repeat", "2",
            "--config", str(_config(tmp_path, upstream.url)), "--provider", "local",
            "--set", 'reasoning.effort="high"', "--delete", "input[1]", "--capture", str(capture),
        )  # fmt: skip
        sent = [r.json() for r in upstream.requests]
    assert result.returncode == 0, result.stderr
    # What went out: the recorded body with the edits, twice, and the recorded Codex-style headers.
    assert len(sent) == 2 and sent[0] == sent[1]
    assert sent[0]["reasoning"]["effort"] == "high"
    assert sent[0]["input"] == original["input"][:1] + original["input"][2:]
    assert upstream.requests[0].headers.get("authorization") is None, "the local provider has no key"
    out = result.stdout
    assert f"turn 1 sent 2 time(s) to {upstream.url}/v1" in out
    assert "request changed from the recording:" in out
    assert "input[1] developer[<skills_catalog>, <permissions>]: removed" in out
    assert "reasoning: {'summary': 'auto'} → {'summary': 'auto', 'effort': 'high'}" in out
    # The recorded answer (reasoning, then ls -R) beside each new one.
    recorded = out.split("recorded answer", 1)[1].split("answer 1", 1)[0]
    assert "reasoning" in recorded and 'function_call exec_command {"cmd": "ls -R"' in recorded
    assert (
        "answer 1 (completed; input 2,000 (0 cached), output 9 tokens): different steps\n"
        '  message "I would rather ask first."'
    ) in out
    assert "answer 2 (completed;" in out and "0 of 2 answers take the recorded steps" in out
    # Captured like the agent's own requests, with where they came from.
    captured = read_recording(capture)
    assert len(captured.model_requests()) == 2
    assert captured.header.meta["client"] == "ctxscope resend" and captured.header.meta["source_turn"] == 1


def test_json_output_and_a_failed_answer(recording: Path, tmp_path: Path) -> None:
    with FakeUpstream() as upstream:
        upstream.reply(SseReply(response_stream(text_message("ok"))))
        result = run_cli(
            "resend", str(recording), "-t", "7", "--json", "--no-capture",
            "--config", str(_config(tmp_path, upstream.url)), "--provider", "local", "--model", "gpt-5",
        )  # fmt: skip
        sent = upstream.requests[0].json()
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert sent["model"] == "gpt-5" and doc["sent"]["model"] == "gpt-5"
    assert doc["edits"] == ["model: 'gpt-5-mini' → 'gpt-5'"]
    assert [s["kind"] for s in doc["answers"][0]["steps"]] == ["message"]
    assert doc["capture"] is None and doc["errors"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-t", "99"], "there is no turn 99"),
        (["-t", "1", "--set", "reasoning.effort"], "write PATH=VALUE"),
        (["-t", "1", "--delete", "nothere.at.all"], "--delete 'nothere.at.all': nothing in the request"),
        (["-t", "1", "--repeat", "0"], "ask between 1 and 20 times"),
        (["-t", "1", "--body", "/nonexistent/body.json"], "cannot read --body /nonexistent/body.json"),
    ],
)
def test_bad_input_is_one_line(recording: Path, tmp_path: Path, args: list[str], message: str) -> None:
    before = recording.read_bytes()
    result = run_cli(
        "resend",
        str(recording),
        *args,
        "--no-capture",
        "--config",
        str(_config(tmp_path, "http://127.0.0.1:9")),
        "--provider",
        "local",
    )
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert recording.read_bytes() == before


def test_a_local_base_url_needs_no_api_key(recording: Path, tmp_path: Path) -> None:
    with FakeUpstream() as upstream:
        upstream.reply(SseReply(response_stream(text_message("hi"))))
        result = run_cli(
            "resend", str(recording), "--turn", "1", "--base-url", upstream.url + "/v1", "--no-capture",
            env={"OPENAI_API_KEY": ""},
        )  # fmt: skip
        sent = upstream.requests
    assert result.returncode == 0, result.stderr
    assert len(sent) == 1 and sent[0].headers.get("authorization") is None


def test_help_keeps_the_bracketed_provider_table_and_shows_no_bool_on_flags() -> None:
    helped = run_cli("resend", "--help", env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert "apikey | chatgpt | a [providers.NAME] of config.toml." in helped.stdout
    assert "<bool>" not in helped.stdout and "--no-capture" in helped.stdout

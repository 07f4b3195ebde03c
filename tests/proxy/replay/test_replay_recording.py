"""Replaying real recordings: record through the real Recorder against a FakeUpstream, then replay.

Strict matching must accept the same client behaviour from another checkout, another temp dir, other
session ids and dates, and must reject a changed request with the differing JSON paths.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import httpx
import pytest
from openai import OpenAI

from ctxscope.proxy.errors import ReplayMismatch
from ctxscope.proxy.replay import load_cassette, serve_cassette
from ctxscope.proxy.responses import fold_sse_bytes
from ctxscope.proxy.testing import JsonReply, SseReply, response_stream, text_message
from tests.proxy.replay.replay_support import Run, codex_body, headers, post, record_session, turn_replies

RECORDED_CWD = "/home/ann/src/proj"


@pytest.fixture
def two_turns(tmp_path: Path) -> Path:
    """A recorded two-turn Codex-like session (plus a /models call) made in RECORDED_CWD."""
    run = Run(cwd=RECORDED_CWD, date="2026-01-05", timezone="America/New_York", version="0.160.0")

    def drive(url: str) -> None:
        with httpx.Client(timeout=30) as client:
            assert client.get(url + "/v1/models", headers=headers(run)).status_code == 200
        for turn in (1, 2):
            assert post(url, codex_body(run, turn), run).status_code == 200

    replies = [JsonReply({"object": "list", "data": [{"id": "gpt-5-codex"}]}), *turn_replies()]
    return record_session(tmp_path / "session.jsonl", {"cwd": RECORDED_CWD}, replies, drive)


def test_strict_replay_from_another_checkout_serves_the_recorded_streams(two_turns: Path) -> None:
    cassette = load_cassette(two_turns)
    assert cassette.kind == "recording" and cassette.cwd == RECORDED_CWD
    assert len(cassette.model_entries) == 2 and len(cassette.other_entries) == 1
    live = Run(cwd="/srv/ci/checkout-7", date="2026-11-29", timezone="UTC", version="0.169.0")
    with serve_cassette(two_turns, live_cwd=live.cwd) as server:
        with httpx.Client(timeout=30) as client:
            models = client.get(server.url + "/v1/models", headers=headers(live))
        first = post(server.url, codex_body(live, 1), live)
        second = post(server.url, codex_body(live, 2), live)
        report = server.report
    assert models.status_code == 200 and models.json()["data"][0]["id"] == "gpt-5-codex"
    assert first.status_code == 200 and first.headers["content-type"] == "text/event-stream"
    folded_first = fold_sse_bytes(first.content)
    folded_second = fold_sse_bytes(second.content)
    assert folded_first is not None and folded_second is not None
    assert folded_first["output"][0]["type"] == "function_call"
    assert folded_second["output"][0]["content"][0]["text"] == "README.md says hello."
    # the bytes served are the recorded events, in order
    assert second.content == cassette.model_entries[1].render("", None, "fast").stream_bytes()
    assert report.problems() == [] and report.served == 2 and report.remaining == 0


def test_the_checkout_can_also_be_learned_from_the_requests(tmp_path: Path) -> None:
    """No `cwd` in the header and a live cwd unknown to the replayer: the <cwd> tags still map."""
    run = Run(cwd="/opt/a/repo")
    path = record_session(
        tmp_path / "r.jsonl",
        {},
        turn_replies(),
        lambda url: [post(url, codex_body(run, t), run) for t in (1, 2)],
    )
    live = Run(cwd="/var/lib/b/repo")
    with serve_cassette(path, live_cwd="/") as server:
        statuses = [post(server.url, codex_body(live, t), live).status_code for t in (1, 2)]
        assert statuses == [200, 200], server.report.problems()


def test_a_changed_request_gets_400_naming_the_paths_and_nothing_advances(two_turns: Path) -> None:
    live = Run(cwd="/srv/ci/checkout-7")
    changed = codex_body(live, 1, prompt="List the files, then delete README.md.")
    changed["tools"].append({"type": "function", "name": "rm_rf", "parameters": {}})
    changed["reasoning"]["effort"] = "high"
    with serve_cassette(two_turns, live_cwd=live.cwd) as server:
        answer = post(server.url, changed, live)
        # the position did not advance: the right request still gets turn 1's answer
        again = post(server.url, codex_body(live, 1), live)
        report = server.report
    assert answer.status_code == 400
    assert answer.headers["x-should-retry"] == "false"
    error = answer.json()["error"]
    assert error["type"] == "ctxscope_replay_mismatch"
    assert error["cassette"] == str(two_turns) and error["index"] == 0 and isinstance(error["exchange"], int)
    assert error["differences"][0].startswith("input[2].content[0].text differs")
    assert "tools: added rm_rf" in error["differences"]
    assert any(d.startswith("reasoning.effort differs") for d in error["differences"])
    assert str(two_turns) in error["message"] and "input[2].content[0].text" in error["message"]
    assert again.status_code == 200
    [mismatch] = report.mismatches
    assert mismatch.served is False and mismatch.differences == error["differences"]


def test_openai_python_sees_the_mismatch_as_an_error_at_once(two_turns: Path) -> None:
    live = Run(cwd="/srv/x")
    with serve_cassette(two_turns, live_cwd=live.cwd) as server:
        client = OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=2)
        with pytest.raises(Exception) as err:
            client.responses.create(model="gpt-5-codex", input="something else", stream=True)
        client.close()
        report = server.report
    assert "ctxscope replay: request does not match" in str(err.value)
    assert len(report.mismatches) == 1  # x-should-retry: false, so no retries


def test_sequential_mode_serves_anyway_and_notes_the_mismatch(two_turns: Path) -> None:
    live = Run(cwd="/srv/x")
    with serve_cassette(two_turns, match="sequential", live_cwd=live.cwd) as server:
        first = post(server.url, codex_body(live, 1, prompt="something else"), live)
        second = post(server.url, codex_body(live, 2), live)
        report = server.report
    assert first.status_code == second.status_code == 200
    [mismatch] = report.mismatches
    assert mismatch.served and mismatch.index == 0
    assert "served anyway" in mismatch.line()
    with pytest.raises(ReplayMismatch, match=r"^1 replay problem\(s\): .*exchange \d+ \(POST .*anyway"):
        report.raise_for_problems()


def test_ignore_paths_hide_user_chosen_differences(two_turns: Path) -> None:
    live = Run(cwd="/srv/x")
    body = codex_body(live, 1, prompt="another prompt")
    body["temperature"] = 0.5
    with serve_cassette(two_turns, live_cwd=live.cwd, ignore=["input[2].content[0].text"]) as server:
        status = post(server.url, body, live).status_code
        problems = server.report.problems()
    assert status == 400 and problems and "temperature added" in problems[0]
    assert "input[2]" not in problems[0]


def test_an_ignored_path_covers_a_key_only_one_side_has(two_turns: Path) -> None:
    """Codex adds `workspaces` to some turn metadata: ignoring it covers the key where it is missing."""
    live = Run(cwd="/srv/x")
    body = codex_body(live, 1)
    body["temperature"] = 0.5
    meta = json.loads(body["client_metadata"]["x-codex-turn-metadata"])
    meta["workspaces"] = {live.cwd: {"has_changes": True}}
    body["client_metadata"]["x-codex-turn-metadata"] = json.dumps(meta)
    ignore = ["temperature", 'client_metadata["x-codex-turn-metadata"].workspaces']
    with serve_cassette(two_turns, live_cwd=live.cwd, ignore=ignore) as server:
        status = post(server.url, body, live).status_code
        problems = server.report.problems()
    assert status == 200, problems
    assert problems == []


def test_exhausted_cassette_answers_410(two_turns: Path) -> None:
    live = Run(cwd="/srv/x")
    with serve_cassette(two_turns, match="sequential") as server:
        answers = [post(server.url, codex_body(live, t), live) for t in (1, 2, 2)]
        report = server.report
    assert [a.status_code for a in answers] == [200, 200, 410]
    assert "no more model responses (all 2 served)" in answers[2].json()["error"]["message"]
    assert report.exhausted == ["POST /v1/responses"]


def test_unknown_endpoint_404_and_websocket_upgrade_426(two_turns: Path) -> None:
    with serve_cassette(two_turns) as server, httpx.Client(timeout=30) as client:
        missing = client.get(server.url + "/v1/files")
        upgrade = client.get(
            server.url + "/v1/responses",
            headers={
                "upgrade": "websocket",
                "connection": "Upgrade",
                "sec-websocket-version": "13",
                "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
            },
        )
        report = server.report
    assert (
        missing.status_code == 404 and "has no answer for GET /v1/files" in missing.json()["error"]["message"]
    )
    assert upgrade.status_code == 426
    assert report.unmatched == ["GET /v1/files"]


def test_recorded_errors_replay_as_recorded(tmp_path: Path) -> None:
    """A 429 with its headers, and a stream the upstream cut mid-way, come back the same way."""
    run = Run(cwd="/r")
    cut_events = response_stream(text_message("never finished", chunks=4))

    def drive(url: str) -> None:
        assert post(url, codex_body(run, 1), run).status_code == 429
        with pytest.raises(httpx.RemoteProtocolError):
            post(url, codex_body(run, 1), run)

    replies = [
        JsonReply(
            {"error": {"message": "slow down", "code": "rate_limit_exceeded"}},
            status=429,
            headers={"retry-after": "7"},
        ),
        SseReply(cut_events, cut_after=4),
    ]
    path = record_session(tmp_path / "errors.jsonl", {}, replies, drive)
    with serve_cassette(path) as server:
        limited = post(server.url, codex_body(run, 1), run)
        with pytest.raises(httpx.RemoteProtocolError):
            post(server.url, codex_body(run, 1), run)
        assert server.report.served == 2
    assert limited.status_code == 429 and limited.headers["retry-after"] == "7"
    assert limited.json()["error"]["code"] == "rate_limit_exceeded"


def test_recorded_pace_streams_the_events_in_order(two_turns: Path) -> None:
    live = Run(cwd="/srv/x")
    with serve_cassette(two_turns, pace="recorded", match="sequential") as server:
        with (
            httpx.Client(timeout=30) as client,
            client.stream(
                "POST", server.url + "/v1/responses", json=codex_body(live, 1), headers=headers(live)
            ) as response,
        ):
            body = b"".join(response.iter_raw())
    folded = fold_sse_bytes(body)
    assert folded is not None and folded["status"] == "completed"


def test_replay_with_openai_python_streaming(tmp_path: Path) -> None:
    """Record openai-python's own request, then replay it to openai-python, strictly."""

    def ask(url: str) -> list[Any]:
        client = OpenAI(base_url=url + "/v1", api_key="sk-test-0123456789abcdefghij", max_retries=0)
        with client.responses.create(model="gpt-5-codex", input="Say hello", stream=True) as stream:
            events = list(stream)
        client.close()
        return events

    path = record_session(
        tmp_path / "sdk.jsonl", {}, [SseReply(response_stream(text_message("Hello from the cassette")))], ask
    )
    with serve_cassette(path) as server:
        events = ask(server.url)
        assert server.report.problems() == []
    assert events[-1].type == "response.completed"
    assert events[-1].response.output[0].content[0].text == "Hello from the cassette"
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == "Hello from the cassette"


def test_secrets_in_the_live_body_match_their_redacted_recording(tmp_path: Path) -> None:
    run = Run(cwd="/r")
    body = codex_body(run, 1)
    body["input"][2]["content"][0]["text"] = "use key sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4 please"
    path = record_session(
        tmp_path / "s.jsonl",
        {},
        [SseReply(response_stream(text_message("ok")))],
        lambda u: [post(u, body, run)],
    )
    assert "sk-proj-A1b2" not in path.read_text()
    with serve_cassette(path) as server:
        assert post(server.url, body, run).status_code == 200
        other = json.loads(json.dumps(body).replace("A1b2C3", "B9x8Y7"))
    with serve_cassette(path) as server:
        # another key is still "a key" after redaction: the placeholders compare by kind
        assert post(server.url, other, run).status_code == 200


def test_a_torn_last_line_is_skipped_with_a_warning(two_turns: Path) -> None:
    with two_turns.open("a") as fh:
        fh.write('{"kind": "exchange", "id": 99, "meth')  # a writer killed mid-line
    cassette = load_cassette(two_turns)
    assert len(cassette.model_entries) == 2
    assert cassette.warnings and "line" in cassette.warnings[0]


def test_replay_from_another_temp_directory(tmp_path: Path) -> None:
    """Recorded in pytest's tmp dir, replayed from a mkdtemp dir: both are `<tmp>` after normalising."""
    recorded_run = Run(cwd=str(tmp_path / "repo"))

    def drive(url: str) -> None:
        for turn in (1, 2):
            post(url, codex_body(recorded_run, turn), recorded_run)

    path = record_session(tmp_path / "t.jsonl", {"cwd": recorded_run.cwd}, turn_replies(), drive)
    with tempfile.TemporaryDirectory() as other:
        live = Run(cwd=str(Path(other) / "repo"))
        with serve_cassette(path, live_cwd=other) as server:
            statuses = [post(server.url, codex_body(live, t), live).status_code for t in (1, 2)]
            problems = server.report.problems()
    assert statuses == [200, 200], problems

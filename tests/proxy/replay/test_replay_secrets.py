"""Strict replay with secrets: live requests are redacted like recorded ones, placeholders are variables."""

from __future__ import annotations

import json
from pathlib import Path

from ctxscope.proxy.replay import serve_cassette
from ctxscope.proxy.testing import SseReply, response_stream, text_message
from tests.proxy.redact import samples_support as samples
from tests.proxy.replay.replay_support import Run, codex_body, post, record_session

KEY_A = samples.OPENAI_KEY
KEY_B = "sk-proj-" + "Zq9" * 30
KEY_C = "sk-proj-" + "Wx7" * 30


def _body(run: Run, first: str, second: str) -> dict[str, object]:
    body = codex_body(run, 1)
    body["input"][2]["content"][0]["text"] = f"use {first} here"  # type: ignore[index]
    body["input"].append(  # type: ignore[union-attr]
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"and {second}"}]}
    )
    return body


def _record(tmp_path: Path, run: Run, path: str = "/v1/responses") -> Path:
    return record_session(
        tmp_path / "s.jsonl",
        {},
        [SseReply(response_stream(text_message("ok")))],
        lambda url: [post(url, _body(run, KEY_A, KEY_A), run, path=path)],
    )


def test_a_placeholder_binds_one_live_value_consistently(tmp_path: Path) -> None:
    run = Run(cwd="/r")
    recording = _record(tmp_path, run)
    assert KEY_A not in recording.read_text()
    with serve_cassette(recording) as server:  # another machine's key, the same key in both places
        assert post(server.url, _body(run, KEY_B, KEY_B), run).status_code == 200
    with serve_cassette(recording) as server:  # two different keys where the recording has one
        answer = post(server.url, _body(run, KEY_B, KEY_C), run)
    assert answer.status_code == 400
    assert "input[3].content[0].text differs" in answer.text
    assert KEY_B not in answer.text and KEY_C not in answer.text


def test_a_key_in_the_query_is_redacted_before_comparing_and_reporting(tmp_path: Path) -> None:
    run = Run(cwd="/r")
    path = f"/v1/responses?key={samples.GOOGLE_KEY}"
    recording = _record(tmp_path, run, path=path)
    assert samples.GOOGLE_KEY not in recording.read_text()
    events: list[str] = []
    with serve_cassette(recording, on_event=events.append) as server:
        same = post(server.url, _body(run, KEY_A, KEY_A), run, path=path)
        changed = post(server.url, {"model": "other"}, run, path=path)
        report = server.report
    assert same.status_code == 200  # a byte-identical request matches strictly
    assert changed.status_code in (400, 410)
    everything = json.dumps([events, changed.text, [m.line() for m in report.mismatches], report.exhausted])
    assert samples.GOOGLE_KEY not in everything
    assert "<redacted:" in everything

"""WebSocket replay: turns recorded over a WebSocket are served back over a WebSocket.

Recorded with the real Recorder between a `websockets` client and `ctxscope.proxy.testing.WsUpstream`;
replayed by the real replayer to a `websockets` client, with strict matching.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from ctxscope.proxy.replay import load_cassette, serve_cassette
from ctxscope.proxy.testing import WsUpstream
from ctxscope.proxy.testing.capture import capture_proxy


def _turn(ws: Any, marker: str, previous: str | None) -> list[dict[str, Any]]:
    frame: dict[str, Any] = {
        "type": "response.create",
        "model": "gpt-ws",
        "input": [{"type": "message", "role": "user", "content": marker}],
    }
    if previous:
        frame["previous_response_id"] = previous
    ws.send(json.dumps(frame))
    events = []
    for _ in range(100):  # bounded: a turn is a handful of events
        event = json.loads(ws.recv(timeout=10))
        events.append(event)
        if event["type"] in ("response.completed", "response.failed", "error"):
            return events
    raise AssertionError("no terminal event")


def _session(url: str, markers: tuple[str, ...] = ("one", "two")) -> list[list[dict[str, Any]]]:
    turns: list[list[dict[str, Any]]] = []
    with connect(url.replace("http://", "ws://") + "/v1/responses") as ws:
        previous = None
        for marker in markers:
            turns.append(_turn(ws, marker, previous))
            last = turns[-1][-1]
            previous = last["response"]["id"] if last["type"] == "response.completed" else None
    return turns


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[tuple[Path, list[list[dict[str, Any]]]]]:
    path = tmp_path / "ws.jsonl"
    with WsUpstream() as upstream, capture_proxy(upstream.url, path) as session:
        turns = _session(session.url)
        session.wait_for(3)
    yield path, turns


def test_websocket_turns_replay_over_a_websocket(recorded: tuple[Path, list[list[dict[str, Any]]]]) -> None:
    path, original = recorded
    cassette = load_cassette(path)
    assert [e.endpoint for e in cassette.model_entries] == ["websocket", "websocket"]
    for pace in ("fast", "recorded"):
        with serve_cassette(path, pace=pace) as server:
            replayed = _session(server.url)
            report = server.report
        assert replayed == original
        assert report.served == 2 and report.problems() == []


def test_a_changed_frame_gets_an_error_event(recorded: tuple[Path, list[list[dict[str, Any]]]]) -> None:
    path, _ = recorded
    with serve_cassette(path) as server:
        [first] = _session(server.url, markers=("something else",))
        report = server.report
    error = first[-1]
    # 400: the status clients treat as final (a 409 is retried by Codex for ~13 s); the replayer's own
    # status is kept (the HTTP mismatch answer's, 400 too), and the message names the frame as a frame
    assert error["type"] == "error" and error["status"] == 400
    assert error["error"]["replay_status"] == 400
    assert error["error"]["differences"][0].startswith("input[0].content differs")
    assert "WebSocket frame does not match" in error["error"]["message"]
    assert "(WebSocket frame on /v1/responses)" in report.mismatches[0].line()
    assert "POST" not in report.mismatches[0].line()
    assert len(report.mismatches) == 1


def test_http_cassettes_refuse_the_upgrade_with_426(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"format": "ctxscope-script", "responses": [{"text": "hi"}]}))
    with serve_cassette(script) as server:
        with pytest.raises(InvalidStatus) as err:
            _session(server.url)
    assert err.value.response.status_code == 426

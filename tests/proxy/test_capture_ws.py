"""WebSocket transport: frames are relayed, each `response.create` turn is recorded as an exchange."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, JsonReply, WsUpstream, capture_proxy
from ctxscope.proxy.testing.capture import CaptureSession


@pytest.fixture
def ws_upstream() -> Iterator[WsUpstream]:
    """Each response.create gets a streamed text answer naming what it answered."""
    with WsUpstream() as upstream:
        yield upstream


@pytest.fixture
def ws_capture(ws_upstream: WsUpstream, recording_path: Any) -> Iterator[CaptureSession]:
    with capture_proxy(ws_upstream.url, recording_path) as session:
        yield session


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
    while True:
        event = json.loads(ws.recv(timeout=10))
        events.append(event)
        if event["type"] in ("response.completed", "response.failed"):
            return events


def test_websocket_frames_are_relayed_and_each_turn_recorded(ws_capture: CaptureSession) -> None:
    url = ws_capture.url.replace("http://", "ws://") + "/v1/responses"
    with connect(url, additional_headers={"Authorization": "Bearer sk-wsPLANTEDsecret0123456789"}) as ws:
        first = _turn(ws, "turn-one", None)
        second = _turn(ws, "turn-two", first[-1]["response"]["id"])
    assert first[-1]["response"]["output"][0]["content"][0]["text"] == "answer to turn-one"
    assert second[-1]["response"]["output"][0]["content"][0]["text"] == "answer to turn-two"

    ws_capture.wait_for(3)
    data = ws_capture.path.read_bytes()
    assert b"PLANTED" not in data
    exchanges = sorted(read_recording(ws_capture.path).exchanges, key=lambda e: e.id)
    connection, *turns = exchanges
    assert connection.endpoint == "websocket" and connection.request_body is None
    assert connection.status == 101
    assert connection.meta["transport"] == "websocket"
    assert len(turns) == 2
    for turn, events, marker in zip(turns, (first, second), ("turn-one", "turn-two"), strict=True):
        assert turn.endpoint == "websocket" and turn.is_model_request
        assert turn.request_body["type"] == "response.create"
        assert turn.request_body["input"][-1]["content"] == marker
        assert [json.loads(e.data) for e in turn.sse] == events
        assert turn.response is not None and turn.response["status"] == "completed"
        assert turn.response["output"][0]["content"][0]["text"] == f"answer to {marker}"
        assert turn.meta["connection"] == connection.id
    assert turns[1].request_body["previous_response_id"] == first[-1]["response"]["id"]
    # The connection lists every frame; texts held by a turn point at it instead of repeating.
    frames = connection.ws_frames
    assert len(frames) == 2 + len(first) + len(second)
    assert sum(f.from_client for f in frames) == 2
    owners = [getattr(f, "exchange_id", None) for f in frames]
    assert owners.count(turns[0].id) == 1 + len(first)
    assert owners.count(turns[1].id) == 1 + len(second)


def test_connection_closed_mid_turn_records_the_partial_turn_with_an_error(recording_path: Any) -> None:
    # The upstream answers the first response.create with four events, then closes the connection.
    with WsUpstream(hang_up_after=4) as upstream:
        with capture_proxy(upstream.url, recording_path) as capture:
            url = capture.url.replace("http://", "ws://") + "/v1/responses"
            received = []
            with connect(url) as ws:
                ws.send(json.dumps({"type": "response.create", "model": "gpt-ws", "input": []}))
                with pytest.raises(ConnectionClosed):
                    while True:
                        received.append(json.loads(ws.recv(timeout=10)))
            assert len(received) == 4
            capture.wait_for(2)
    connection, turn = sorted(read_recording(recording_path).exchanges, key=lambda e: e.id)
    assert connection.request_body is None and "code 1011" in connection.meta["close"]
    assert turn.request_body["type"] == "response.create"
    assert len(turn.sse) == 4
    assert turn.response is not None and turn.response["status"] == "in_progress"
    assert turn.error is not None and turn.error.kind == "upstream_reset"
    assert "closed by server" in turn.error.message


def test_websocket_handshake_refused_with_426_is_an_http_exchange(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    upstream.reply(JsonReply({"error": "use HTTP"}, status=426))
    url = capture.url.replace("http://", "ws://") + "/v1/responses"
    with pytest.raises(InvalidStatus) as info:
        connect(url, open_timeout=10)
    assert info.value.response.status_code == 426
    (ex,) = capture.wait_for(1)
    assert ex.endpoint == "websocket" and ex.status == 426
    assert ex.response_body == {"error": "use HTTP"}
    assert ex.request_body is None and ex.ws_frames == []

"""A `previous_response_id` chain over the WebSocket transport, captured by the real proxy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from ctxscope.proxy.testing import WsUpstream, capture_proxy
from ctxscope.proxy.testing.capture import CaptureSession
from tests.inspector.one_account import assert_one_account


@pytest.fixture
def ws_capture(tmp_path: Path) -> Iterator[CaptureSession]:
    with WsUpstream() as upstream, capture_proxy(upstream.url, tmp_path / "ws.jsonl") as session:
        yield session


def _turn(ws: Any, said: str, previous: str | None) -> str:
    frame: dict[str, Any] = {
        "type": "response.create",
        "model": "gpt-ws",
        "input": [{"type": "message", "role": "user", "content": said}],
    }
    if previous:
        frame["previous_response_id"] = previous
    ws.send(json.dumps(frame))
    for _ in range(100):  # bounded: a text answer is a handful of events
        event = json.loads(ws.recv(timeout=10))
        if event["type"] == "response.completed":
            return str(event["response"]["id"])
    raise AssertionError("no response.completed within 100 events")


def test_websocket_chain_is_rebuilt(ws_capture: CaptureSession) -> None:
    url = ws_capture.url.replace("http://", "ws://") + "/v1/responses"
    with connect(url) as ws:
        first = _turn(ws, "one", None)
        _turn(ws, "two", first)
    ws_capture.wait_for(3)
    ws_capture.server.stop()
    ws_capture.writer.close()

    analysis = assert_one_account(ws_capture.path)  # batch == incremental; info == diff == TUI counts
    assert [t.turn.transport for t in analysis.turns] == ["websocket", "websocket"]
    second = analysis.turn(2)
    assert second.turn.chain_resolved and second.turn.sent_items == 1
    labels = [i.label for i in second.turn.items]
    assert labels == ['user: "one"', 'assistant: "answer to one"', 'user: "two"']
    assert second.change.kind == "append" and len(analysis.threads) == 1

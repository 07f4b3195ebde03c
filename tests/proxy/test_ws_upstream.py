"""`ctxscope.proxy.testing.WsUpstream` behaves as the Responses WebSocket was observed to behave toward Codex:
prewarm, chains whose model output is not re-sent, remote compaction v2, `previous_response_not_found`."""

from __future__ import annotations

import json
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from ctxscope.proxy.testing import WsRequest, WsUpstream, function_call, text_message


def _send(ws: ClientConnection, **frame: Any) -> list[dict[str, Any]]:
    ws.send(json.dumps({"type": "response.create", "model": "gpt-ws", **frame}))
    events: list[dict[str, Any]] = []
    for _ in range(100):  # bounded: an answer is a handful of events
        events.append(json.loads(ws.recv(timeout=10)))
        if events[-1]["type"] in ("response.completed", "error"):
            return events
    raise AssertionError("no terminal event")


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def test_prewarm_chain_compaction_and_a_lost_chain() -> None:
    def model(request: WsRequest) -> list[list[dict[str, Any]]]:
        if request.full_input[-1].get("type") == "function_call_output":
            return [text_message("done")]
        return [function_call("exec_command", {"cmd": "pwd"}, call_id="call_1")]

    with WsUpstream(handler=model) as upstream, connect(upstream.ws_url) as ws:
        base = {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "base"}]}
        prewarm = _send(ws, input=[base], generate=False)
        assert prewarm[-1]["response"]["output"] == []  # a prewarm generates nothing
        first = _send(ws, previous_response_id=prewarm[-1]["response"]["id"], input=[_user("run pwd")])
        call = first[-1]["response"]["output"][0]
        assert call["type"] == "function_call"
        # the follow-up sends only the output: the server adds the model's own function_call
        output = {"type": "function_call_output", "call_id": "call_1", "output": "/repo"}
        second = _send(ws, previous_response_id=first[-1]["response"]["id"], input=[output])
        assert second[-1]["response"]["output"][0]["content"][0]["text"] == "done"
        rebuilt = upstream.requests[-1].full_input
        assert rebuilt == [base, _user("run pwd"), call, output]

        trigger = _send(
            ws, previous_response_id=second[-1]["response"]["id"], input=[{"type": "compaction_trigger"}]
        )
        [item] = trigger[-1]["response"]["output"]
        assert item["type"] == "compaction" and item["encrypted_content"] == upstream.compaction_summary
        assert upstream.requests[-1].compaction and not upstream.requests[-1].prewarm

        upstream.forget()
        lost = _send(ws, previous_response_id=trigger[-1]["response"]["id"], input=[_user("more")])
    assert lost == [
        {
            "type": "error",
            "status": 400,
            "error": {
                "type": "invalid_request_error",
                "code": "previous_response_not_found",
                "param": "previous_response_id",
                "message": f"Previous response with id '{trigger[-1]['response']['id']}' not found.",
            },
        }
    ]
    assert len(upstream.requests) == 4  # the refused frame is not a request the model saw


def test_chains_are_per_connection_and_the_handshake_is_kept() -> None:
    with WsUpstream() as upstream:
        with connect(upstream.ws_url, additional_headers={"x-codex-window-id": "t:0"}) as ws:
            first = _send(ws, input=[_user("one")])
        assert first[-1]["response"]["output"][0]["content"][0]["text"] == "answer to one"
        with connect(upstream.ws_url) as ws:
            other = _send(ws, previous_response_id=first[-1]["response"]["id"], input=[_user("two")])
        assert other[-1]["error"]["code"] == "previous_response_not_found"
        assert upstream.handshakes[0]["x-codex-window-id"] == "t:0"
        assert [r.connection for r in upstream.requests] == [0]
        # a GET without an upgrade: 426 on the model path, 404 elsewhere
        with httpx.Client(timeout=10) as client:
            assert client.get(f"{upstream.url}/v1/responses").status_code == 426
            assert client.get(f"{upstream.url}/v1/models").status_code == 404

"""Codex's built-in provider over the WebSocket, as the analysis must read it.

Frames shaped as Codex 0.169 sends them (see the Codex notes) go from a real `websockets` client
through the real recording proxy to `ctxscope.proxy.testing.WsUpstream`: a handshake whose turn-metadata header
says `prewarm`, a prewarm frame (`generate: false`), chained turns whose own `client_metadata` says
what they are, a tool follow-up that sends only the output, a remote compaction v2 request, the next
chain after it, and a full resend after `previous_response_not_found` whose function call carries
passthrough metadata the rebuilt one lacks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

from ctxscope.inspector.analysis.items import classify_item
from ctxscope.inspector.tui.viewmodel.turn import turn_view
from ctxscope.proxy.testing import WsRequest, WsUpstream, capture_proxy, function_call, text_message
from tests.cli_support import run_cli
from tests.inspector.exchange_support import Script, body, completed, message
from tests.inspector.one_account import assert_one_account

THREAD = "019aa2c1-0000-7000-8000-000000000001"
HANDSHAKE_META = json.dumps({"request_kind": "prewarm", "thread_id": THREAD, "sandbox": "none"})


def _meta(kind: str) -> dict[str, str]:
    turn = json.dumps({"request_kind": kind, "thread_id": THREAD, "turn_id": "t1"})
    return {"session_id": THREAD, "thread_id": THREAD, "x-codex-turn-metadata": turn}


def _passthrough(*kinds: str, turn: bool = True) -> dict[str, Any]:
    meta: dict[str, Any] = {"content_item_kinds": list(kinds)} if kinds else {}
    if turn:
        meta |= {"turn_id": "t1", "create_time": 1795981314.084}
    return meta


def _msg(role: str, text: str, kind: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {
        "type": "message",
        "role": role,
        "content": [{"type": part, "text": text}],
        "internal_chat_message_metadata_passthrough": _passthrough(kind),
    }


BASE = {
    "type": "message",
    "role": "developer",
    "content": [{"type": "input_text", "text": "You are Codex, a coding agent."}],
    "internal_chat_message_metadata_passthrough": _passthrough("model.base_instructions", turn=False),
}
ENV = {
    "type": "message",
    "role": "user",
    "content": [
        {"type": "input_text", "text": "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"}
    ],
    "internal_chat_message_metadata_passthrough": _passthrough("environments.environment_context"),
}
# Codex labels this part `user.text`; our recognisers read an AGENTS.md fragment: a disagreement.
MISLABELLED = _msg(
    "user", "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>", "user.text"
)
TOOLS = [{"type": "function", "name": "exec_command", "parameters": {"type": "object"}}]


def _model(request: WsRequest) -> list[list[dict[str, Any]]]:
    if request.full_input[-1].get("type") == "function_call_output":
        return [text_message("ran it")]
    return [function_call("exec_command", {"cmd": "pwd"}, call_id="call_1", item_id="fc_000001")]


def _send(ws: ClientConnection, kind: str, **frame: Any) -> dict[str, Any]:
    ws.send(
        json.dumps(
            {
                "type": "response.create",
                "model": "gpt-5.5",
                "tools": TOOLS,
                "client_metadata": _meta(kind),
                **frame,
            }
        )
    )
    for _ in range(100):  # bounded: an answer is a handful of events
        event = json.loads(ws.recv(timeout=10))
        if event["type"] in ("response.completed", "error"):
            return event
    raise AssertionError("no terminal event")


def _record(path: Path) -> None:
    headers = {"x-codex-turn-metadata": HANDSHAKE_META, "session_id": THREAD}
    with WsUpstream(handler=_model) as upstream, capture_proxy(upstream.url, path) as capture:
        url = capture.url.replace("http://", "ws://") + "/v1/responses"
        with connect(url, additional_headers=headers) as ws:
            prewarm = _send(ws, "prewarm", input=[BASE], generate=False)
            user = _msg("user", "run pwd", "user.text")
            first = _send(
                ws, "turn", previous_response_id=prewarm["response"]["id"], input=[ENV, MISLABELLED, user]
            )
            output = {"type": "function_call_output", "call_id": "call_1", "output": "/repo"}
            second = _send(ws, "turn", previous_response_id=first["response"]["id"], input=[output])
            more = _msg("user", "more", "user.text")
            upstream.forget()  # the server lost the chain: Codex resends the whole request
            lost = _send(ws, "turn", previous_response_id=second["response"]["id"], input=[more])
            assert lost["error"]["code"] == "previous_response_not_found"
            # re-sent, the function call carries a passthrough (`turn_id`) the rebuilt one lacks
            call = {
                **first["response"]["output"][0],
                "internal_chat_message_metadata_passthrough": {"turn_id": "t1"},
            }
            answer = {
                **second["response"]["output"][0],
                "internal_chat_message_metadata_passthrough": _passthrough("unknown"),
            }
            resent = _send(ws, "turn", input=[BASE, ENV, MISLABELLED, user, call, output, answer, more])
            trigger = [{"type": "compaction_trigger"}]
            compaction = _send(ws, "compaction", previous_response_id=resent["response"]["id"], input=trigger)
            [compacted] = compaction["response"]["output"]
            assert compacted["type"] == "compaction"
            _send(ws, "turn", input=[BASE, ENV, compacted, _msg("user", "go on", "user.text")])
        capture.wait_for(8)


def test_prewarm_is_a_side_request_and_frames_say_what_they_are(tmp_path: Path) -> None:
    path = tmp_path / "ws.jsonl"
    _record(path)
    analysis = assert_one_account(path)  # batch == incremental; info == diff == TUI counts
    turns = analysis.turns
    assert [t.turn.side for t in turns] == ["prewarm", *[None] * 6]
    # each frame's own client_metadata wins over the handshake's stale `prewarm`
    assert [t.turn.request_kind for t in turns] == ["prewarm", *["turn"] * 4, "compaction", "turn"]
    [side, thread] = analysis.threads
    assert side.side == "prewarm" and [t.number for t in side.turns] == [1]
    assert thread.name == "T1" and [t.number for t in thread.turns] == [2, 3, 4, 5, 6, 7]
    # the first real turn is the thread's initial turn (not an append to a one-item prewarm); the full
    # resend after previous_response_not_found is no rewrite; the window after the trigger is a compaction
    kinds = [t.change.kind for t in turns[1:]]
    assert kinds == ["initial", "append", "append", "append", "append", "compaction"]
    assert turns[1].turn.chain_resolved and turns[1].change.previous is None
    assert turns[4].change.added == []  # the resend: the same input as the lost request
    assert turns[6].compaction is not None and turns[6].compaction.trigger == "compaction_trigger"
    out = run_cli("diff", str(path)).stdout
    assert "thread S1  side requests (prewarm)" in out
    assert "request_kind prewarm" not in out and "rewrite" not in out

    # `show` prints Codex's own part labels and says where our recognisers read a part otherwise
    shown = run_cli("show", str(path), "--turn", "2").stdout
    assert "codex: model.base_instructions" in shown and "codex: environments.environment_context" in shown
    notes = [line.strip() for line in shown.splitlines() if line.strip().startswith("!")]
    assert notes == ["! part 0: Codex labels it user.text, recognised here as agents_md"]
    doc = json.loads(run_cli("show", str(path), "--turn", "2", "--format", "json").stdout)
    labels = [[p.get("codex_label") for p in i.get("parts") or []] for i in doc["input"]]
    # the TUI's turn view says so too, under the item
    view = turn_view(analysis.turn(2), None, reason="", expanded=set())
    assert "! part 0: Codex labels it user.text, recognised here as agents_md" in [
        line.text.strip() for line in view.lines
    ]
    assert labels == [
        ["model.base_instructions"],
        ["environments.environment_context"],
        ["user.text"],
        ["user.text"],
    ]


def test_passthrough_metadata_is_not_content(tmp_path: Path) -> None:
    item = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}
    with_meta = {**item, "internal_chat_message_metadata_passthrough": {"turn_id": "t9"}}
    assert classify_item(0, item).key == classify_item(0, with_meta).key


def test_in_band_tools_and_parameters_and_agent_messages(tmp_path: Path) -> None:
    # Newer Codex models and modes change tools (`additional_tools`, Responses-Lite) and parameters
    # (`configuration_update`) inside the input, and relay other agents' words (`agent_message`).
    grep = {"type": "function", "name": "grep_files", "parameters": {"type": "object"}}
    first = [message("user", "look around")]
    second = [
        *first,
        message("assistant", "ok"),
        {"type": "additional_tools", "role": "developer", "tools": [grep]},
        {"type": "configuration_update", "reasoning": {"effort": "high"}},
        {
            "type": "agent_message",
            "author": "explorer",
            "content": [{"type": "output_text", "text": "found it"}],
        },
        message("user", "go on"),
    ]
    script = Script()
    for number, items in enumerate((first, second), start=1):
        script.request(body(items), response=completed(f"resp_{number}"), headers={"session-id": "s"})
    analysis = assert_one_account(script.write(tmp_path / "in-band.jsonl"))
    second_turn = analysis.turn(2)
    assert second_turn.change.kind == "append"
    assert second_turn.tools.added == ["grep_files"]  # a tools change, though `tools` did not change
    assert second_turn.params == {"reasoning": ({"effort": "medium"}, {"effort": "high"})}
    kinds = [i.kind for i in second_turn.turn.items]
    assert kinds[2:5] == ["additional_tools", "configuration_update", "agent_message"]
    agent = second_turn.turn.items[4]
    assert agent.is_conversation and agent.label == 'agent_message explorer: "found it"'
    out = run_cli("diff", str(tmp_path / "in-band.jsonl"), "--turn", "2").stdout
    assert "grep_files" in out and "reasoning" in out


def test_remote_compaction_v2_over_http_is_a_compaction(tmp_path: Path) -> None:
    # Over HTTP too (a client that falls back from the socket, or says nothing about its request kind):
    # the trigger request is a compaction request and the window after its `compaction` item a compaction.
    history = [message("user", "fix it"), message("assistant", "fixed"), message("user", "and the docs")]
    compacted = {"type": "compaction", "id": "cmp_1", "encrypted_content": "enc"}
    script = Script()
    script.request(body(history), response=completed("resp_1"), headers={"session-id": "s"})
    trigger = [*history, message("assistant", "done"), {"type": "compaction_trigger"}]
    script.request(body(trigger), response=completed("resp_2", [compacted]), headers={"session-id": "s"})
    after = [compacted, message("user", "and the docs")]
    script.request(body(after), response=completed("resp_3"), headers={"session-id": "s"})
    analysis = assert_one_account(script.write(tmp_path / "v2-http.jsonl"))
    assert [t.turn.request_kind for t in analysis.turns] == [None, "compaction", None]
    assert [t.change.kind for t in analysis.turns] == ["initial", "append", "compaction"]
    report = analysis.turn(3).compaction
    assert report is not None and report.trigger == "compaction_trigger"

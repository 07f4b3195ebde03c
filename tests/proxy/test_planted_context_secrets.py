"""Issue 21's planted classes through the real proxy, in every place: a request body (a tool output the
model sees, `metadata.token`, `credentials.value`), headers, a multipart form, an answer streamed one
character per delta that quotes them out of their line, a stream cut inside a key, WebSocket frames,
and the export and replay report made from the recording. Nothing of any of them, not even a
12-character piece, is on disk; every look-alike is stored byte-identical.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect
from websockets.sync.server import Server, ServerConnection, serve

from ctxscope.proxy.replay import serve_cassette
from ctxscope.proxy.store import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, capture_proxy, response_stream, text_message
from tests.cli_support import run_cli
from tests.proxy.redact import samples_support as samples

VENDOR_KEYS = [key for _, key, _ in samples.VENDOR_ROWS]
TOOL_OUTPUT = "\n".join(
    [
        *(text for _, text in samples.CONTEXT_IN_TEXT),
        *(f"key {k}" for k in VENDOR_KEYS),
        f"id_token: {samples.JWT}",
    ]
)
LOOK_ALIKES = "\n".join([*samples.CODE_LOOK_ALIKES, *(look for _, _, look in samples.VENDOR_ROWS)])
JWT_TAIL = samples.JWT.split(".", 1)[1]
# What the model says back, quoting values out of the lines they came in
ANSWER = (
    f"The netrc password is {samples.NETRC_PASSWORD} and the mysql one {samples.MYSQL_PASSWORD}; "
    f"your HF token {samples.HF_QUOTED}; the JWT ends {JWT_TAIL}; stripe {VENDOR_KEYS[0]}."
)
NETRC = samples.CONTEXT_IN_TEXT[1][1]  # the model reads ~/.netrc over the WebSocket, then quotes it
CUT_KEY = VENDOR_KEYS[1]  # a Stripe restricted key, cut 30 characters in
WS_KEY = VENDOR_KEYS[5]  # a Google OAuth client secret, streamed over the WebSocket

SECRETS = [
    *(secret for secret, _ in samples.CONTEXT_IN_TEXT),
    *VENDOR_KEYS,
    samples.JWT,
    JWT_TAIL,
    samples.METADATA_TOKEN,
    samples.WS_SESSION_TOKEN,
    samples.CREDENTIALS_VALUE,
    samples.B64_JSON,
]


def _pieces(secret: str) -> list[str]:
    """Every 12-character piece of `secret` (or the whole, if shorter), but those a look-alike holds too
    (`sk-ant-api03` is the prefix of every Anthropic key, and of its `<your-key>` template)."""
    pieces = [secret[i : i + 12] for i in range(max(1, len(secret) - 11))]
    return [p for p in pieces if p not in LOOK_ALIKES]


def _leaks(data: str) -> list[str]:
    """Secrets of which a piece is in `data`."""
    return [s for s in SECRETS if any(p in data for p in _pieces(s))]


def _cut_reply() -> SseReply:
    """An answer streamed one character per delta whose connection drops 30 characters into a key."""
    events = response_stream(text_message(f"here: {CUT_KEY} done", chunks=len(CUT_KEY) + 11))
    shown = 0
    for index, event in enumerate(events):
        if event.get("type") == "response.output_text.delta":
            shown += len(event["delta"])
            if shown >= len("here: ") + 30:
                return SseReply(events, cut_after=index + 1)
    raise AssertionError("no delta")


def _ws_answer(ws: ServerConnection) -> None:
    for message in ws:
        frame = json.loads(message)
        if frame.get("type") != "response.create":
            ws.send(json.dumps({"type": "session.updated", "session": {"id": "sess_1"}}))
            continue
        text = f"ws: {WS_KEY} and {samples.NETRC_PASSWORD}"
        for event in response_stream(text_message(text, chunks=len(text))):
            ws.send(json.dumps(event))


@pytest.fixture
def ws_upstream() -> Iterator[Server]:
    server = serve(_ws_answer, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        thread.join(timeout=10)


def _request_body() -> dict[str, Any]:
    return {
        "model": "gpt-5",
        "metadata": {"token": samples.METADATA_TOKEN, "user": "bob"},
        "credentials": {"type": "api_key", "value": samples.CREDENTIALS_VALUE},
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": LOOK_ALIKES}]},
            {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": '{"cmd":"cat"}'},
            {"type": "function_call_output", "call_id": "c1", "output": TOOL_OUTPUT},
        ],
    }


def _http_traffic(upstream: FakeUpstream, base: str) -> None:
    answer_text = ANSWER
    upstream.reply(
        SseReply(response_stream(text_message(answer_text, chunks=len(answer_text)))), _cut_reply()
    )
    headers = {"x-npm-token": VENDOR_KEYS[3], "x-debug": f"key={samples.HF_QUOTED}"}
    with httpx.Client(timeout=30) as client:
        answer = client.post(f"{base}/v1/responses", json=_request_body(), headers=headers)
        assert answer.status_code == 200 and samples.HF_QUOTED in answer.text  # the client gets it all
        with pytest.raises(httpx.HTTPError):
            client.post(f"{base}/v1/responses", json={"model": "gpt-5", "input": "again"}).read()
    upstream.reply(SseReply(response_stream(text_message("ok"))))
    with httpx.Client(timeout=30) as client:
        form = client.post(
            f"{base}/upload",
            content=samples.MULTIPART.encode(),
            headers={"content-type": "multipart/form-data; boundary=XyZ"},
        )
        assert form.status_code == 200


def test_every_context_class_in_every_place_leaves_nothing_on_disk(
    tmp_path: Path,
    upstream: FakeUpstream,
    ws_upstream: Server,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recording = tmp_path / "planted.jsonl"
    with capture_proxy(upstream.url, recording) as capture:
        _http_traffic(upstream, capture.url)
        capture.wait_for(3)
    ws_port = ws_upstream.socket.getsockname()[1]
    with capture_proxy(f"http://127.0.0.1:{ws_port}", recording) as capture:
        url = capture.url.replace("http://", "ws://") + "/v1/responses"
        with connect(url) as ws:
            ws.send(json.dumps({"type": "session.update", "session": {"token": samples.WS_SESSION_TOKEN}}))
            assert "session.updated" in str(ws.recv(timeout=10))
            ws.send(
                json.dumps(
                    {"type": "response.create", "model": "m", "input": [{"role": "user", "content": NETRC}]}
                )
            )
            while json.loads(ws.recv(timeout=10))["type"] != "response.completed":
                pass
        capture.wait_for(1)

    data = recording.read_text()
    assert _debug(data) == []
    exchanges = read_recording(recording).exchanges
    first = exchanges[0]
    assert first.request_body["input"][0]["content"][0]["text"] == LOOK_ALIKES  # byte-identical
    # the deltas still join to what the done event says, one placeholder per quoted secret
    deltas = "".join(
        json.loads(e.data)["delta"] for e in first.sse if e.event == "response.output_text.delta"
    )
    assert deltas.startswith("The netrc password is <redacted:password:") and deltas.count("<redacted:") == 5
    cut = exchanges[1]
    cut_text = "".join(
        json.loads(e.data)["delta"] for e in cut.sse if e.event == "response.output_text.delta"
    )
    # the key was in the request's tool output: its stub is a piece of a key met before, and gets its name
    only = re.fullmatch(r"here: (<redacted:[a-z_]+:\d+>)", cut_text)
    assert only is not None, cut_text
    assert only.group(1) == "<redacted:cut:1>" or f"key {only.group(1)}" in json.dumps(first.request_body)

    export = tmp_path / "export.jsonl"
    assert run_cli("export", str(recording), "--what", "exchanges", "-o", str(export)).returncode == 0
    assert _leaks(export.read_text()) == []
    with serve_cassette(recording) as server:
        with httpx.Client(timeout=30) as client:
            client.post(f"{server.url}/v1/responses", json={**_request_body(), "model": "other"})
        report = json.dumps(server.report.as_dict())
    assert "mismatch" in report and _leaks(report) == []


def _debug(data: str) -> list[tuple[str, str]]:
    """Each leaked secret with where its first piece is, to see which place let it through."""
    out = []
    for secret in _leaks(data):
        at = min(i for i in (data.find(p) for p in _pieces(secret)) if i >= 0)
        out.append((secret[:20], data[max(0, at - 150) : at + 40]))
    return out

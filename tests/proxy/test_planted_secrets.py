"""The planted-secrets sweep: every kind, in every place, finds nothing on disk; look-alikes stay as sent.

Real traffic through the real proxy (HTTP with SSE, a form-encoded POST, WebSocket turns and non-turn
frames), then the files made from it: the recording, an export, a replay report; and a session file,
which keeps the conversation exactly but never the credentials the harness holds.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from ctxscope.harness.session import WITHHELD, SessionStore
from ctxscope.proxy.replay import serve_cassette
from ctxscope.proxy.store import read_recording
from ctxscope.proxy.testing import (
    FakeUpstream,
    JsonReply,
    SseReply,
    WsUpstream,
    capture_proxy,
    function_call,
    reasoning,
    response_stream,
    text_message,
)
from tests.cli_support import run_cli
from tests.proxy.redact import samples_support as samples

TOOL_OUTPUT = "\n".join(text for _, text in samples.IN_TEXT)
LOOK_ALIKES = "\n".join(samples.NOT_SECRETS)
STREAMED_KEY = samples.ANTHROPIC_KEY
WS_KEY = samples.GITHUB_FINE
ALL_SECRETS = [secret for secret, _ in samples.IN_TEXT] + [
    samples.OPENAI_KEY,
    samples.X_AUTH,
    samples.PRIVATE_TOKEN,
    samples.AMZ_TOKEN,
    STREAMED_KEY,
    WS_KEY,
    "PLANTEDsession0001",
    "PLANTEDcookie0002",
]


def _leaks(data: str) -> list[str]:
    """Secrets found whole, or as any 12-character piece (a key split across stored deltas)."""
    found = []
    for secret in ALL_SECRETS:
        pieces = (
            {secret[i : i + 12] for i in range(max(1, len(secret) - 11))} if len(secret) > 16 else {secret}
        )
        if any(piece in data for piece in pieces):
            found.append(secret)
    return found


def _session_updated(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """A non-turn frame is answered with a non-turn frame (echoing the secret it carried)."""
    return [{"type": "session.updated", "session": {"client_secret": frame.get("api_key")}}]


@pytest.fixture
def ws_upstream() -> Iterator[WsUpstream]:
    answer = [text_message(f"ws key {WS_KEY} ok", chunks=5)]
    with WsUpstream(handler=lambda request: answer, on_other=_session_updated) as upstream:
        yield upstream


def _http_traffic(upstream: FakeUpstream, base: str) -> None:
    upstream.reply(
        SseReply(
            response_stream(
                reasoning("thinking", encrypted_content=samples.ENCRYPTED_BLOB),
                text_message(f"Here it is: {STREAMED_KEY} (keep it safe)", chunks=9),
                function_call(
                    "exec_command", {"cmd": f"OPENAI_API_KEY={samples.OPENAI_KEY} ./run"}, chunks=4
                ),
            ),
            headers={"Set-Cookie": "session=PLANTEDsession0001; HttpOnly"},
        ),
        JsonReply({"access_token": samples.JWT, "refresh_token": samples.REFRESH_TOKEN}),
    )
    body = {
        "model": "gpt-5",
        "auth_token": samples.X_AUTH,
        "client_metadata": {"db": {"password": samples.NUMERIC_PASSWORD}},
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": LOOK_ALIKES}]},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "exec_command",
                "arguments": '{"cmd":"env"}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": TOOL_OUTPUT},
        ],
    }
    headers = {
        "Authorization": f"Bearer {samples.OPENAI_KEY}",
        "x-auth-token": samples.X_AUTH,
        "private-token": samples.PRIVATE_TOKEN,
        "x-amz-security-token": samples.AMZ_TOKEN,
        "Cookie": "sid=PLANTEDcookie0002",
        "session-id": "019342f7-8e1c-7a2b-9c3d-4e5f6a7b8c9d",
    }
    with httpx.Client(timeout=30) as client:
        answer = client.post(f"{base}/v1/responses?key={samples.GOOGLE_KEY}", json=body, headers=headers)
        assert answer.status_code == 200 and STREAMED_KEY in answer.text  # the client gets it all
        form = f"grant_type=password&password={samples.FORM_PASSWORD}&client_secret={samples.FORM_SECRET}"
        token = client.post(
            f"{base}/oauth/token", content=form, headers={"content-type": "application/x-www-form-urlencoded"}
        )
        assert token.status_code == 200


def test_every_planted_kind_in_every_place_finds_nothing_on_disk(
    tmp_path: Path,
    upstream: FakeUpstream,
    ws_upstream: WsUpstream,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recording = tmp_path / "planted.jsonl"
    with capture_proxy(upstream.url, recording) as capture:
        _http_traffic(upstream, capture.url)
        capture.wait_for(2)
    with capture_proxy(ws_upstream.url, recording) as capture:
        url = capture.url.replace("http://", "ws://") + "/v1/responses"
        with connect(url, additional_headers={"Authorization": f"Bearer {WS_KEY}"}) as ws:
            ws.send(json.dumps({"type": "session.update", "api_key": samples.SERVICE_AUTH}))
            assert "session.updated" in str(ws.recv(timeout=10))
            ws.send(
                json.dumps(
                    {"type": "response.create", "model": "m", "input": [{"role": "user", "content": "x"}]}
                )
            )
            while json.loads(ws.recv(timeout=10))["type"] != "response.completed":
                pass
        capture.wait_for(2)

    data = recording.read_text()
    assert [(s, data[max(0, data.find(s[:12]) - 60) : data.find(s[:12]) + 40]) for s in _leaks(data)] == []
    exchanges = read_recording(recording).exchanges
    first = next(e for e in exchanges if e.url.split("?")[0].endswith("/v1/responses"))
    # every look-alike is unchanged, and so is the opaque reasoning blob
    assert first.request_body["input"][0]["content"][0]["text"] == LOOK_ALIKES
    assert samples.ENCRYPTED_BLOB in data
    assert first.request_headers["session-id"] == "019342f7-8e1c-7a2b-9c3d-4e5f6a7b8c9d"
    # the streamed deltas still join to what the done event says (redacted alike)
    deltas = "".join(
        json.loads(e.data)["delta"] for e in first.sse if e.event == "response.output_text.delta"
    )
    assert deltas.startswith("Here it is: <redacted:api_key:") and deltas.endswith("(keep it safe)")

    # an export, a replay report and a session file made from it
    export = tmp_path / "export.jsonl"
    assert run_cli("export", str(recording), "--what", "exchanges", "-o", str(export)).returncode == 0
    assert _leaks(export.read_text()) == []
    with serve_cassette(recording) as server:
        with httpx.Client(timeout=30) as client:
            client.post(
                f"{server.url}/v1/responses?key={samples.GOOGLE_KEY}",
                json={"model": "gpt-5", "input": TOOL_OUTPUT},
                headers={"Authorization": f"Bearer {samples.OPENAI_KEY}"},
            )
        report = json.dumps(server.report.as_dict())
    assert "mismatch" in report and _leaks(report) == []
    # A session file is the agent's private memory (owner-only): it keeps conversation content exactly,
    # but never the credentials the harness holds itself (here: the key it would send upstream).
    held = [samples.OPENAI_KEY, samples.X_AUTH]
    store = SessionStore.create(
        {"cwd": str(tmp_path)}, directory=tmp_path / "sessions", credentials=lambda: held
    )
    store.append("message", {"role": "user", "content": f"{TOOL_OUTPUT}\nkey {samples.OPENAI_KEY}"})
    store.append("message", {"role": "tool", "content": f"x-auth-token: {samples.X_AUTH}"})
    session = store.path.read_text()
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [s for s in held if s in session] == []
    expected = f"{TOOL_OUTPUT}\nkey {WITHHELD}"
    for value in held:
        expected = expected.replace(value, WITHHELD)
    assert store.entries()[1].payload["content"] == expected  # every other kind kept as typed

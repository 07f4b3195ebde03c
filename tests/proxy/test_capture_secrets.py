"""Secrets planted in headers, bodies, URLs and responses never reach the recording's bytes."""

from __future__ import annotations

import httpx

from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import CaptureSession, FakeUpstream, SseReply, response_stream, text_message

SECRETS = {
    "authorization": "sk-proj-PLANTEDauth0001abcdefghijklmnop",
    "account": "PLANTED-account-0002",
    "cookie": "PLANTEDcookie0003",
    "x_api_key": "PLANTEDxkey0004",
    "body_key": "PLANTEDbodykey0005",
    "body_text": "sk-PLANTEDintext0006abcdefghijkl",
    "query_key": "PLANTEDquery0007",
    "query_token": "PLANTEDquerytoken0008",
    "response_text": "sk-PLANTEDresponse0009abcdefghij",
    "set_cookie": "PLANTEDsetcookie0010",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJQTEFOVEVEIjoiMDAxMSJ9.PLANTEDsig0011abcdef",
}


def test_planted_secrets_never_appear_in_the_file(upstream: FakeUpstream, capture: CaptureSession) -> None:
    upstream.reply(
        SseReply(
            response_stream(text_message(f"here is {SECRETS['response_text']} for you")),
            headers={"Set-Cookie": f"sid={SECRETS['set_cookie']}"},
        )
    )
    body = {
        "model": "gpt-5",
        "api_key": SECRETS["body_key"],
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": f"my key is {SECRETS['body_text']} and {SECRETS['jwt']}"}
                ],
            }
        ],
        "client_metadata": {"access_token": SECRETS["jwt"]},
    }
    headers = {
        "Authorization": f"Bearer {SECRETS['authorization']}",
        "ChatGPT-Account-ID": SECRETS["account"],
        "Cookie": f"session={SECRETS['cookie']}; theme=dark",
        "x-api-key": SECRETS["x_api_key"],
    }
    url = (
        f"{capture.url}/v1/responses?api_key={SECRETS['query_key']}&access_token={SECRETS['query_token']}&x=1"
    )
    r = httpx.post(url, json=body, headers=headers, timeout=20)
    assert r.status_code == 200 and SECRETS["response_text"] in r.text  # the client still gets everything
    # The upstream got the real values: redaction is only for the file.
    assert upstream.requests[0].headers["authorization"] == f"Bearer {SECRETS['authorization']}"
    capture.wait_for(1)
    capture.writer.close()

    data = capture.path.read_bytes()
    assert b"PLANTED" not in data
    for secret in SECRETS.values():
        assert secret.encode() not in data
    (ex,) = read_recording(capture.path).exchanges
    assert ex.request_headers["Authorization"].startswith("Bearer <redacted:")
    assert ex.request_headers["ChatGPT-Account-ID"].startswith("<redacted:")
    assert "<redacted:" in ex.url and "x=1" in ex.url
    assert ex.request_body["model"] == "gpt-5"  # everything else is kept

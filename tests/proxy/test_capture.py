"""What the Recorder writes for ordinary traffic: bodies, encodings, endpoints, sizes, the live line."""

from __future__ import annotations

import gzip
import json

import brotli
import httpx
import pytest
import zstandard
from openai import OpenAI

from ctxscope.proxy.live_log import format_line
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import (
    CaptureSession,
    FakeUpstream,
    JsonReply,
    RawReply,
    SseReply,
    response_stream,
    text_message,
    usage,
)

TIMEOUT = 20.0


def test_request_and_response_are_recorded_completely(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    body = {
        "model": "gpt-5",
        "instructions": "be brief",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]}],
        "stream": True,
    }
    upstream.reply(
        SseReply(
            response_stream(
                text_message("hi there"), model="gpt-5", usage=usage(1234, 56, cached_tokens=1024)
            ),
            headers={"x-request-id": "req_1", "openai-model": "gpt-5"},
        )
    )
    r = httpx.post(
        f"{capture.url}/v1/responses?trace=1", json=body, headers={"session-id": "s-1"}, timeout=TIMEOUT
    )
    assert r.status_code == 200
    (live,) = capture.wait_for(1)
    (ex,) = read_recording(capture.path).exchanges
    assert ex.method == "POST"
    assert ex.url == f"{upstream.url}/v1/responses?trace=1"
    assert ex.endpoint == "responses"
    assert ex.status == 200
    assert ex.request_body == body
    assert ex.request_size == len(upstream.requests[0].body)
    assert ex.request_headers["session-id"] == "s-1"
    assert ex.response_headers["x-request-id"] == "req_1"
    assert ex.response is not None and ex.response["usage"]["input_tokens"] == 1234
    assert ex.response["output"][0]["content"][0]["text"] == "hi there"
    assert ex.ttfb_ms is not None and ex.duration_ms is not None and ex.duration_ms >= ex.ttfb_ms
    assert ex.ended_at is not None and ex.ended_at >= ex.started_at
    assert ex.error is None
    line = format_line(live)
    expected = f"exchange {live.id}  POST  /v1/responses  200  gpt-5  in 1,234 (cached 1,024)  out 56  "
    assert line.startswith(expected)
    assert line.endswith(" s")


def test_models_compact_and_other_endpoints(upstream: FakeUpstream, capture: CaptureSession) -> None:
    compact = {"output": [{"type": "compaction", "encrypted_content": "xyz"}]}
    upstream.reply(
        JsonReply({"object": "list", "data": [{"id": "gpt-5"}]}),
        JsonReply(compact),
        JsonReply({"ok": True}),
    )
    with httpx.Client(base_url=f"{capture.url}/v1", timeout=TIMEOUT) as client:
        assert client.get("/models").json()["data"][0]["id"] == "gpt-5"
        assert client.post("/responses/compact", json={"model": "m", "input": []}).json() == compact
        assert client.delete("/files/f1").json() == {"ok": True}
    capture.wait_for(3)
    by_kind = {e.endpoint: e for e in read_recording(capture.path).exchanges}
    assert set(by_kind) == {"models", "responses/compact", "other"}
    assert by_kind["models"].response_body["data"][0]["id"] == "gpt-5"
    assert by_kind["responses/compact"].response == compact
    assert by_kind["other"].method == "DELETE"


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("gzip", gzip.compress),
        ("br", brotli.compress),
        ("zstd", lambda b: zstandard.ZstdCompressor().compress(b)),
    ],
)
def test_compressed_request_bodies_are_decoded(
    upstream: FakeUpstream, capture: CaptureSession, encoding: str, compress: object
) -> None:
    body = {"model": "m", "input": [{"type": "message", "role": "user", "content": "zipped " * 100}]}
    raw = json.dumps(body).encode()
    packed = compress(raw)  # type: ignore[operator]
    r = httpx.post(
        f"{capture.url}/v1/responses",
        content=packed,
        headers={"content-type": "application/json", "content-encoding": encoding},
        timeout=TIMEOUT,
    )
    assert r.status_code == 200
    assert upstream.requests[0].body == packed  # relayed as sent
    (ex,) = capture.wait_for(1)
    (stored,) = read_recording(capture.path).exchanges
    for e in (ex, stored):
        assert e.request_body == body
        assert e.request_size == len(raw)


def test_non_json_and_malformed_json_bodies_are_recorded_as_text(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    upstream.reply(
        JsonReply({"error": "bad json"}, status=400), RawReply(b"<html>bad gateway</html>", status=502)
    )
    with httpx.Client(base_url=f"{capture.url}/v1", timeout=TIMEOUT) as client:
        assert (
            client.post(
                "/responses",
                content=b'{"model": "m", "input": [',
                headers={"content-type": "application/json"},
            ).status_code
            == 400
        )
        assert (
            client.post(
                "/responses", content=b"plain words \xff\xfe", headers={"content-type": "text/plain"}
            ).status_code
            == 502
        )
    capture.wait_for(2)
    first, second = sorted(read_recording(capture.path).exchanges, key=lambda e: e.id)
    assert first.request_body is None and first.request_text == '{"model": "m", "input": ['
    assert first.status == 400 and first.response_body == {"error": "bad json"}
    assert second.request_body is None and second.request_text is not None
    assert second.request_text.startswith("plain words ")
    assert second.request_size == len(b"plain words \xff\xfe")
    assert second.status == 502 and second.response_text == "<html>bad gateway</html>"


@pytest.mark.slow
def test_a_20_mb_request_and_response_pass_through_and_are_recorded(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    big = "x" * (20 * 1024 * 1024)
    body = {"model": "m", "input": [{"type": "message", "role": "user", "content": big + "END-MARKER"}]}
    payload = json.dumps(body).encode()
    blob = bytes(range(256)) * (20 * 1024 * 4)  # 20 MiB of binary
    upstream.reply(
        SseReply(response_stream(text_message("big ok"))),
        RawReply(blob, content_type="application/octet-stream"),
    )
    with httpx.Client(base_url=f"{capture.url}/v1", timeout=60) as client:
        r = client.post("/responses", content=payload, headers={"content-type": "application/json"})
        assert r.status_code == 200 and "big ok" in r.text
        download = client.get("/blob")
        assert download.content == blob
    assert upstream.requests[0].body == payload
    capture.wait_for(2)
    exchanges = sorted(read_recording(capture.path).exchanges, key=lambda e: e.id)
    assert exchanges[0].request_size == len(payload)
    assert exchanges[0].request_body["input"][0]["content"].endswith("END-MARKER")
    assert exchanges[1].meta["response_size"] == len(blob)


def test_openai_python_non_streaming_response_is_recorded(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    final = response_stream(text_message("plain json answer"), model="gpt-json")[-1]["response"]
    upstream.reply(JsonReply(final))
    client = OpenAI(
        base_url=f"{capture.url}/v1", api_key="sk-test-not-a-real-key", max_retries=0, timeout=TIMEOUT
    )
    result = client.responses.create(model="gpt-json", input="hi")
    client.close()
    assert result.output_text == "plain json answer"
    (ex,) = capture.wait_for(1)
    assert ex.sse == [] and ex.response_body == final
    assert ex.response == final  # a non-streamed Responses object is the reconstructed response as is

"""SSE goes through the recording proxy as it arrives, never buffered — checked with a gated upstream.

The upstream sends event k+1 only after the client has received event k through the proxy. A proxy
that buffered anything would leave the client waiting for an event the upstream will not send yet:
the client's read timeout then fails the test. No sleeps, no timing thresholds.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from openai import OpenAI

from ctxscope.proxy.responses import SseParser
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import (
    CaptureSession,
    FakeUpstream,
    SseReply,
    function_call,
    response_stream,
    text_message,
)

READ_TIMEOUT_S = 10.0


def test_httpx_client_gets_each_event_before_the_next_is_sent(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    events = response_stream(text_message("one two three four five", chunks=5), function_call("f", {"a": 1}))
    upstream.reply(SseReply(events, gated=True))
    received: list[dict[str, Any]] = []
    parser = SseParser()
    with httpx.Client(timeout=httpx.Timeout(READ_TIMEOUT_S)) as client:
        with client.stream("POST", f"{capture.url}/v1/responses", json={"model": "m", "stream": True}) as r:
            assert r.status_code == 200
            for chunk in r.iter_raw():
                for _, data in parser.feed(chunk):
                    received.append(json.loads(data))
                    # The upstream has not been allowed to send more than we have seen.
                    assert upstream.gate.sent <= len(received)
                    upstream.gate.release()
    assert received == events
    (exchange,) = capture.wait_for(1)
    assert [json.loads(e.data) for e in exchange.sse] == events
    times = [e.t_ms for e in exchange.sse]
    assert times == sorted(times)
    assert exchange.response is not None and exchange.response["status"] == "completed"
    assert exchange.response["output"] == events[-1]["response"]["output"]


def test_openai_python_streaming_through_the_proxy_is_incremental(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    events = response_stream(text_message("streamed answer", chunks=4), model="gpt-test")
    upstream.reply(SseReply(events, gated=True))
    client = OpenAI(
        base_url=f"{capture.url}/v1", api_key="sk-test-not-a-real-key", max_retries=0, timeout=READ_TIMEOUT_S
    )
    seen: list[str] = []
    with client.responses.create(model="gpt-test", input="hi", stream=True) as stream:
        for event in stream:
            seen.append(event.type)
            upstream.gate.release()
    client.close()
    assert seen == [e["type"] for e in events]
    (exchange,) = capture.wait_for(1)
    assert exchange.endpoint == "responses"
    assert exchange.request_body["input"] == "hi"
    assert exchange.response is not None
    assert exchange.response["output"][0]["content"][0]["text"] == "streamed answer"
    recording = read_recording(capture.path)
    assert [e.id for e in recording.exchanges] == [exchange.id]
    assert len(recording.exchanges[0].sse) == len(events)


def test_gzip_encoded_stream_is_relayed_and_its_events_are_recorded(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    events = response_stream(text_message("compressed", chunks=3))
    upstream.reply(SseReply(events, gated=True, gzip=True))
    received = 0
    parser = SseParser()
    with httpx.Client(timeout=READ_TIMEOUT_S) as client:
        with client.stream("POST", f"{capture.url}/v1/responses", json={"model": "m"}) as r:
            assert r.headers["content-encoding"] == "gzip"
            for chunk in r.iter_bytes():  # httpx decodes gzip as it goes
                for _ in parser.feed(chunk):
                    received += 1
                    upstream.gate.release()
    assert received == len(events)
    (exchange,) = capture.wait_for(1)
    assert [json.loads(e.data)["type"] for e in exchange.sse] == [e["type"] for e in events]
    assert exchange.response is not None
    assert exchange.response["output"][0]["content"][0]["text"] == "compressed"

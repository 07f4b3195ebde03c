"""20 streaming clients at once: every exchange recorded once, none mixed with another."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx

from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import (
    CaptureSession,
    FakeUpstream,
    RecordedRequest,
    Reply,
    SseReply,
    response_stream,
    text_message,
)

CLIENTS = 20


def test_twenty_concurrent_streams_are_recorded_once_each_and_unmixed(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    # The upstream answers nobody until all 20 requests are in flight: they really overlap.
    barrier = threading.Barrier(CLIENTS, timeout=30)

    def handler(request: RecordedRequest) -> Reply:
        marker = request.json()["input"]
        barrier.wait()
        return SseReply(response_stream(text_message(f"echo {marker} " * 20, chunks=10), model=marker))

    upstream.handler = handler

    def one_client(n: int) -> str:
        marker = f"m{n:02d}"
        text = ""
        with httpx.Client(timeout=30) as client:
            with client.stream(
                "POST", f"{capture.url}/v1/responses", json={"model": "m", "input": marker}
            ) as r:
                for line in r.iter_lines():
                    if line.startswith("data:"):
                        event = json.loads(line[5:])
                        if event["type"] == "response.output_text.delta":
                            text += event["delta"]
        return text

    with ThreadPoolExecutor(CLIENTS) as pool:
        texts = list(pool.map(one_client, range(CLIENTS)))
    for n, text in enumerate(texts):
        assert text == f"echo m{n:02d} " * 20

    capture.wait_for(CLIENTS)
    exchanges = read_recording(capture.path).exchanges
    assert len(exchanges) == CLIENTS
    assert len({e.id for e in exchanges}) == CLIENTS
    markers = set()
    for ex in exchanges:
        marker = ex.request_body["input"]
        markers.add(marker)
        assert ex.response is not None and ex.response["model"] == marker
        assert ex.response["output"][0]["content"][0]["text"] == f"echo {marker} " * 20
        deltas = [json.loads(e.data) for e in ex.sse]
        assert all(marker in d.get("delta", marker) for d in deltas)
    assert markers == {f"m{n:02d}" for n in range(CLIENTS)}

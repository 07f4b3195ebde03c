"""Upstream errors, cut and stalled streams, an unreachable upstream: the client sees what the
upstream did, the recording says what happened, and the proxy keeps serving."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest

from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import (
    CaptureSession,
    FakeUpstream,
    JsonReply,
    SseReply,
    StallReply,
    capture_proxy,
    response_stream,
    text_message,
)

TIMEOUT = 20.0


def _still_serving(capture: CaptureSession) -> None:
    r = httpx.post(f"{capture.url}/v1/responses", json={"model": "after"}, timeout=TIMEOUT)
    assert r.status_code == 200 and "response.completed" in r.text


@pytest.mark.parametrize("status", [429, 500])
def test_error_status_is_relayed_and_recorded(
    upstream: FakeUpstream, capture: CaptureSession, status: int
) -> None:
    error = {"error": {"type": "rate_limit" if status == 429 else "server_error", "message": "try later"}}
    upstream.reply(JsonReply(error, status=status, headers={"retry-after": "7"}))
    r = httpx.post(f"{capture.url}/v1/responses", json={"model": "m"}, timeout=TIMEOUT)
    assert r.status_code == status
    assert r.json() == error
    assert r.headers["retry-after"] == "7"
    _still_serving(capture)
    capture.wait_for(2)
    first, second = sorted(read_recording(capture.path).exchanges, key=lambda e: e.id)
    assert first.status == status and first.response_body == error and first.error is None
    assert first.response_headers["retry-after"] == "7"
    assert second.status == 200


def test_response_failed_event_is_recorded_as_a_failed_response(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    upstream.reply(SseReply(response_stream(text_message("part"), failed=("server_is_overloaded", "busy"))))
    r = httpx.post(f"{capture.url}/v1/responses", json={"model": "m"}, timeout=TIMEOUT)
    assert r.status_code == 200 and "response.failed" in r.text
    (ex,) = capture.wait_for(1)
    assert ex.response is not None and ex.response["status"] == "failed"
    assert ex.response["error"]["code"] == "server_is_overloaded"


def test_stream_cut_midway(upstream: FakeUpstream, capture: CaptureSession) -> None:
    events = response_stream(text_message("never finished", chunks=4))
    upstream.reply(SseReply(events, cut_after=5))
    got: list[str] = []
    with httpx.Client(timeout=TIMEOUT) as client:
        with pytest.raises(httpx.RemoteProtocolError):
            with client.stream("POST", f"{capture.url}/v1/responses", json={"model": "m"}) as r:
                for line in r.iter_lines():
                    if line.startswith("data:"):
                        got.append(json.loads(line[5:])["type"])
    assert got == [e["type"] for e in events[:5]]  # the client saw exactly what the upstream sent
    _still_serving(capture)
    capture.wait_for(2)
    cut = min(read_recording(capture.path).exchanges, key=lambda e: e.id)
    assert cut.status == 200
    assert cut.error is not None and cut.error.kind == "upstream_reset"
    assert len(cut.sse) == 5
    assert cut.response is not None and cut.response["status"] == "in_progress"
    partial = cut.response["output"][0]["content"][0]["text"]
    assert partial and "never finished".startswith(partial)


def test_stalled_upstream_client_times_out(upstream: FakeUpstream, capture: CaptureSession) -> None:
    upstream.reply(StallReply())
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            f"{capture.url}/v1/responses", json={"model": "stalled"}, timeout=httpx.Timeout(20, read=0.5)
        )
    (ex,) = capture.wait_for(1)
    assert ex.status is None
    assert ex.error is not None and ex.error.kind == "client_abort"
    assert "no response from the upstream" in ex.error.message
    assert ex.request_body == {"model": "stalled"}
    _still_serving(capture)


def test_stream_stalled_midway_client_times_out(upstream: FakeUpstream, capture: CaptureSession) -> None:
    upstream.reply(SseReply(response_stream(text_message("slow")), stall_after=3))
    got = 0
    with pytest.raises(httpx.ReadTimeout):
        with httpx.stream(
            "POST", f"{capture.url}/v1/responses", json={}, timeout=httpx.Timeout(20, read=0.5)
        ) as r:
            for line in r.iter_lines():
                got += line.startswith("data:")
    assert got == 3
    (ex,) = capture.wait_for(1)
    assert ex.status == 200 and len(ex.sse) == 3
    assert ex.error is not None and ex.error.kind == "client_abort"
    _still_serving(capture)


def test_unreachable_upstream(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port that was free a moment ago and has no listener now
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with capture_proxy(f"http://127.0.0.1:{port}", tmp_path / "r.jsonl") as capture:
        r = httpx.post(f"{capture.url}/v1/responses", json={"model": "m"}, timeout=TIMEOUT)
        assert r.status_code == 502
        (ex,) = capture.wait_for(1)
    assert ex.status is None
    assert ex.error is not None and ex.error.kind == "upstream_unreachable"
    (stored,) = read_recording(tmp_path / "r.jsonl").exchanges
    assert stored.error == ex.error


def test_a_client_closing_after_response_completed_is_not_an_error(
    upstream: FakeUpstream, capture: CaptureSession
) -> None:
    """Codex stops reading at `response.completed` and hangs up before the chunked body ends."""
    events: list[dict[str, object] | bytes] = [*response_stream(text_message("all here"))]
    # every event is sent, then the upstream holds the body open (the comment after them never goes)
    upstream.reply(SseReply([*events, b": still here\n\n"], stall_after=len(events)))
    seen: list[str] = []
    with httpx.stream("POST", f"{capture.url}/v1/responses", json={}, timeout=TIMEOUT) as r:
        for line in r.iter_lines():
            seen.append(line)
            if line.startswith("data:") and '"response.completed"' in line:
                break  # closing here, as Codex does
    (ex,) = capture.wait_for(1)
    assert ex.status == 200 and ex.error is None, ex.error
    assert ex.meta.get("closed") == "client closed the stream after response.completed", ex.meta
    assert ex.response is not None and ex.response["status"] == "completed"
    _still_serving(capture)


def test_resets_are_attributed_to_the_side_that_sent_them() -> None:
    from ctxscope.proxy.flow_fields import classify_error

    # mitmproxy words every HTTP/2 RST_STREAM "by client"; CANCEL is a client that stopped reading
    assert classify_error("stream reset by client (CANCEL)", True) == "client_abort"
    assert classify_error("stream reset by client (INTERNAL_ERROR)", True) == "upstream_reset"
    assert classify_error("peer closed connection", True, client_closed_first=True) == "client_abort"
    assert classify_error("peer closed connection", True) == "upstream_reset"

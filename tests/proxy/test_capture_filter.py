"""What a forward-mode capture records in full and what only as a summary exchange (no bodies)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from ctxscope.proxy.capture_filter import CaptureFilter
from ctxscope.proxy.endpoints import client_base_url
from ctxscope.proxy.live_log import format_line
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.store.summary import summarise
from ctxscope.proxy.testing import (
    FakeUpstream,
    JsonReply,
    SseReply,
    capture_proxy,
    response_stream,
    text_message,
)


def test_patterns_hosts_globs_and_paths() -> None:
    forward = CaptureFilter.build(forward=True)
    assert forward.full("chatgpt.com", "/backend-api/codex/responses")
    assert forward.full("api.openai.com", "/v1/models?client_version=1")
    assert not forward.full("chatgpt.com", "/backend-api/plugins/sync")
    assert not forward.full("ab.chatgpt.com", "/v1/rgstr")
    only = CaptureFilter.build(["chatgpt.com", "/v1/*"], ["*/plugins/*"], forward=True)
    assert only.full("ab.chatgpt.com", "/x")  # a host covers its subdomains
    assert only.full("example.org", "/v1/anything")
    assert not only.full("chatgpt.com", "/backend-api/plugins/sync")  # excluded wins
    assert not only.full("example.org", "/v2/x")
    assert CaptureFilter.build(forward=False).full("telemetry.example", "/t")  # reverse: everything
    assert only.summary_line() == "chatgpt.com, /v1/* (except */plugins/*)"
    for bad in ("", "https://chatgpt.com", "two words"):
        with pytest.raises(ValueError, match="bad capture pattern"):
            CaptureFilter.build([bad], forward=True)


def test_forward_mode_records_model_endpoints_in_full_and_the_rest_as_summaries(tmp_path: Path) -> None:
    path = tmp_path / "forward.jsonl"
    select = CaptureFilter.build(forward=True)
    with FakeUpstream() as upstream:
        big = {"events": ["x" * 50_000]}
        upstream.reply(SseReply(response_stream(text_message("hi"))), JsonReply(big), JsonReply({"ok": True}))
        with capture_proxy(None, path, mode="forward", select=select) as capture:
            with httpx.Client(proxy=capture.url, timeout=20) as client:
                assert client.post(f"{upstream.url}/v1/responses", json={"model": "m"}).status_code == 200
                telemetry = client.post(f"{upstream.url}/telemetry", json={"events": ["y" * 40_000]})
                assert telemetry.json() == big  # the client still gets everything
                assert client.get(f"{upstream.url}/plugins/sync").status_code == 200
            capture.wait_for(3)
    recording = read_recording(path)
    by_path = {e.url.rsplit("/", 1)[-1]: e for e in recording.exchanges}
    model, summary = by_path["responses"], by_path["telemetry"]
    assert model.request_body == {"model": "m"} and model.response is not None
    assert not model.meta.get("summary")
    assert summary.meta["summary"] is True and summary.request_body is None and summary.response_body is None
    assert summary.request_size > 40_000 and summary.meta["response_size"] > 50_000 and summary.status == 200
    assert path.stat().st_size < 20_000  # neither body reached the file
    line = format_line(summary, show_host=True)
    assert line.startswith(f"exchange {summary.id}  POST  127.0.0.1/telemetry  200")
    assert "summary (no bodies)" in line
    info = summarise(recording)
    assert info.hosts == {"127.0.0.1": 3} and info.summarised == 2 and info.errors == []


def test_the_base_url_to_give_clients_follows_the_upstream_path() -> None:
    assert client_base_url("http://127.0.0.1:8787", "") == "http://127.0.0.1:8787/v1"
    assert client_base_url("http://127.0.0.1:8787", "/backend-api/codex") == "http://127.0.0.1:8787"
    assert client_base_url("http://127.0.0.1:8787/", "/v1") == "http://127.0.0.1:8787"

"""`CassetteTransport`: the replay served in-process to httpx clients, with the proxy's rules and report.

Recorded for real through the Recorder against a FakeUpstream; replayed with no proxy running, to
openai-python (sync and async), to the harness's own client while a capture proxy runs in the same
process, and compared with what the proxy replay answers for the same requests.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from openai import AsyncOpenAI, OpenAI

from ctxscope.harness.client import ResponsesClient
from ctxscope.harness.config import RetrySettings
from ctxscope.harness.providers.custom import custom_provider
from ctxscope.harness.request import build_request
from ctxscope.proxy.replay import CassetteTransport, RequestView, register_matcher, serve_cassette
from ctxscope.proxy.replay.matching import MATCHERS
from ctxscope.proxy.testing import FakeUpstream, SseReply, capture_proxy, response_stream, text_message
from tests.proxy.replay.replay_support import Run, codex_body, headers, post, record_session, turn_replies

RECORDED = Run(cwd="/home/ann/w/repo")


@pytest.fixture
def two_turns(tmp_path: Path) -> Path:
    return record_session(
        tmp_path / "two.jsonl",
        {"cwd": RECORDED.cwd},
        turn_replies(),
        lambda url: [post(url, codex_body(RECORDED, t), RECORDED) for t in (1, 2)],
    )


def _client(transport: CassetteTransport) -> httpx.Client:
    return httpx.Client(transport=transport, base_url="http://cassette.invalid")


def test_serves_a_recording_strictly_from_another_checkout_without_a_proxy(two_turns: Path) -> None:
    live = Run(cwd="/srv/ci/w-second/repo")
    transport = CassetteTransport(two_turns, live_cwd="/somewhere/else")
    with _client(transport) as client:
        answers = [
            client.post("/v1/responses", json=codex_body(live, t), headers=headers(live)) for t in (1, 2)
        ]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].headers["content-type"] == "text/event-stream"
    assert answers[1].content == transport.cassette.model_entries[1].render("", None, "fast").stream_bytes()
    report = transport.report
    assert report.problems() == [] and report.served == 2 and report.remaining == 0


def test_a_mismatch_is_the_same_400_and_report_as_the_proxy_gives(two_turns: Path) -> None:
    live = Run(cwd="/srv/x/repo")
    changed = codex_body(live, 1, prompt="delete everything")
    transport = CassetteTransport(two_turns)
    with _client(transport) as client:
        in_process = client.post("/v1/responses", json=changed, headers=headers(live))
    with serve_cassette(two_turns) as server:
        proxied = post(server.url, changed, live)
        proxy_report = server.report
    assert in_process.status_code == proxied.status_code == 400
    assert in_process.json() == proxied.json()
    assert transport.report.as_dict() == proxy_report.as_dict()


def test_openai_python_sync_and_async_stream_through_it(two_turns: Path) -> None:
    def ask(client: OpenAI) -> str:
        stream = client.responses.create(model="gpt-5-codex", input="hi", stream=True)
        return [e.type for e in stream][-1]

    seq = CassetteTransport(two_turns, match="sequential")
    sync = OpenAI(base_url="http://cassette.invalid/v1", api_key="x", http_client=httpx.Client(transport=seq))
    assert ask(sync) == "response.completed"
    sync.close()

    async def ask_async() -> str:
        transport = CassetteTransport(two_turns, match="sequential")
        http = httpx.AsyncClient(transport=transport)
        client = AsyncOpenAI(base_url="http://cassette.invalid/v1", api_key="x", http_client=http)
        stream = await client.responses.create(model="gpt-5-codex", input="hi", stream=True)
        last = [e.type async for e in stream][-1]
        await client.close()
        assert transport.report.served == 1 and len(transport.report.mismatches) == 1
        return last

    assert asyncio.run(ask_async()) == "response.completed"


def test_the_harness_client_replays_while_a_capture_proxy_runs_in_the_same_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = {"format": "ctxscope-script", "responses": [{"text": "from the cassette"}]}
    cassette = tmp_path / "script.json"
    cassette.write_text(json.dumps(script))
    monkeypatch.setenv("T_KEY", "sk-test-0123456789abcdefghij")
    provider = custom_provider("local", {"base_url": "http://cassette.invalid/v1", "env_key": "T_KEY"})
    request = build_request(
        model="m", instructions="i", input_items=[], tools=[], session_id="s", turn_id="t"
    )
    with FakeUpstream() as upstream, capture_proxy(upstream.url, tmp_path / "other.jsonl") as capture:
        upstream.reply(SseReply(response_stream(text_message("from the upstream"))))
        transport = CassetteTransport(cassette, match="sequential")
        with ResponsesClient(provider, retry=RetrySettings(max_retries=0), transport=transport) as client:
            result = client.stream(request)
        # the capture proxy in this process still works
        captured = httpx.post(capture.url + "/v1/responses", json={"stream": True}, timeout=30)
    assert result.items[0].text() == "from the cassette"  # type: ignore[union-attr]
    assert "from the upstream" in captured.text
    assert transport.report.served == 1 and transport.report.problems() == []


def test_a_cut_stream_ends_with_a_protocol_error(tmp_path: Path) -> None:
    script = {"format": "ctxscope-script", "responses": [{"text": "half", "cut": True}]}
    cassette = tmp_path / "cut.json"
    cassette.write_text(json.dumps(script))
    with _client(CassetteTransport(cassette, match="sequential")) as client:
        with client.stream("POST", "/v1/responses", json={"stream": True}) as answer:
            with pytest.raises(httpx.RemoteProtocolError, match="cut"):
                answer.read()


def test_match_on_picks_the_matchers_and_register_matcher_adds_one(two_turns: Path) -> None:
    live = Run(cwd="/srv/x/repo")
    other_prompt = codex_body(live, 1, prompt="another prompt")
    # without `body`, a request with another prompt is served strictly
    loose = CassetteTransport(two_turns, match_on=("method", "path"))
    with _client(loose) as client:
        assert client.post("/v1/responses", json=other_prompt).status_code == 200

    def same_model(live_view: RequestView, recorded_view: RequestView) -> list[str]:
        if live_view.body.get("model") == recorded_view.body.get("model"):
            return []
        recorded, live = recorded_view.body.get("model"), live_view.body.get("model")
        return [f"model differs: recorded {recorded} vs live {live}"]

    register_matcher("model", same_model)
    try:
        by_model = CassetteTransport(two_turns, match_on=("method", "path", "model"))
        with _client(by_model) as client:
            assert client.post("/v1/responses", json=other_prompt).status_code == 200
            other_model = {**codex_body(live, 2), "model": "gpt-4.1"}
            refused = client.post("/v1/responses", json=other_model)
    finally:
        del MATCHERS["model"]  # the registry is process-wide: leave it as found
    assert refused.status_code == 400
    assert refused.json()["error"]["differences"] == ["model differs: recorded gpt-5-codex vs live gpt-4.1"]
    with pytest.raises(ValueError, match="unknown matcher 'nope'"):
        CassetteTransport(two_turns, match_on=("method", "nope"))
    with pytest.raises(ValueError, match="a matcher name is a word"):
        register_matcher("not a name", same_model)

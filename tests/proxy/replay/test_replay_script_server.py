"""Script cassettes served by the real replayer to real clients (openai-python and httpx)."""

from __future__ import annotations

import concurrent.futures
import json
import re
from pathlib import Path

import httpx
import openai
import pytest
from openai import OpenAI

from ctxscope.proxy.recorder import Recorder
from ctxscope.proxy.replay import serve_cassette, serve_script
from ctxscope.proxy.responses import SseParser, encode_stream, fold_sse_bytes
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.store.writer import RecordingWriter

STREAM = {"model": "m", "input": [], "stream": True}
RECORDINGS = Path(__file__).resolve().parents[3] / "recordings"


def _client(url: str) -> OpenAI:
    return OpenAI(base_url=url + "/v1", api_key="sk-test", max_retries=0)


def test_example_script_through_openai_python() -> None:
    with serve_cassette(RECORDINGS / "script-example.json") as server:
        client = _client(server.url)
        models = client.models.list()
        finals = []
        for prompt in ("add greet.py", "tool output", "more tool output"):
            with client.responses.create(model="gpt-5-codex", input=prompt, stream=True) as stream:
                events = list(stream)
            assert events[0].type == "response.created"
            finals.append(events[-1].response)
        client.close()
        report = server.report
    assert [m.id for m in models.data] == ["gpt-5-codex"]
    assert [item.type for item in finals[0].output] == ["reasoning", "function_call"]
    call = finals[0].output[1]
    assert call.name == "exec_command" and json.loads(call.arguments)["cmd"] == "ls -la"
    assert finals[0].usage is not None and finals[0].usage.input_tokens == 2400
    assert [item.type for item in finals[1].output] == ["message", "custom_tool_call"]
    assert finals[1].output[1].input.startswith("*** Begin Patch\n*** Add File: greet.py")
    assert finals[2].output[0].content[0].text.startswith("Added `greet.py`")
    assert report.served == 3 and report.other_served == 1 and report.problems() == []


def test_openai_python_stream_helper_accumulates_the_script() -> None:
    """`client.responses.stream()` validates events as it folds them: the wire shape must be complete."""
    script = [{"output": [{"reasoning": "hmm"}, {"text": "Hi there"}], "usage": {"input_tokens": 5}}]
    with serve_script(script) as server:
        client = _client(server.url)
        with client.responses.stream(model="gpt-5-codex", input="hi") as stream:
            for _ in stream:
                pass
            final = stream.get_final_response()
        client.close()
    assert final.output_text == "Hi there"
    assert final.usage is not None and final.usage.input_tokens == 5


def test_failures_script_through_openai_python() -> None:
    with serve_cassette(RECORDINGS / "script-failures.json") as server:
        client = _client(server.url)
        with pytest.raises(openai.RateLimitError):
            client.responses.create(model="m", input="x", stream=True)
        with (
            pytest.raises(httpx.RemoteProtocolError),
            client.responses.create(model="m", input="x", stream=True) as cut,
        ):
            list(cut)  # the stream breaks before response.completed
        with client.responses.create(model="m", input="x", stream=True) as stream:
            failed = list(stream)[-1]
        with client.responses.create(model="m", input="x", stream=True) as stream:
            incomplete = list(stream)[-1]
        with client.responses.create(model="m", input="x", stream=True) as stream:
            ok = list(stream)[-1]
        client.close()
    assert failed.type == "response.failed"
    assert failed.response.error is not None and failed.response.error.code == "context_length_exceeded"
    assert incomplete.type == "response.incomplete"
    assert ok.type == "response.completed" and ok.response.output_text == "Recovered: here is the answer."


def test_compact_endpoint_gets_the_items_as_json() -> None:
    with serve_script([{"text": "summary of the thread"}]) as server, httpx.Client(timeout=30) as client:
        answer = client.post(server.url + "/v1/responses/compact", json={"model": "m", "input": []})
    assert answer.status_code == 200
    [item] = answer.json()["output"]
    assert item["type"] == "message" and item["content"][0]["text"] == "summary of the thread"


def test_recorded_pace_streams_event_by_event() -> None:
    """Paced answers go through the pacer and arrive as separate chunks, in order, complete."""
    script = [{"text": "one two three four", "chunks": 4, "pace_ms": 40}]
    parser = SseParser()
    chunks: list[list[tuple[str | None, str]]] = []
    with serve_script(script, pace="recorded") as server, httpx.Client(timeout=30) as client:
        with client.stream("POST", server.url + "/v1/responses", json=STREAM) as response:
            assert response.headers["content-type"] == "text/event-stream"
            for raw in response.iter_raw():
                chunks.append(parser.feed(raw))
    events = [json.loads(data) for batch in chunks for _, data in batch]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert sum(1 for batch in chunks if batch) > 1  # not one buffered blob
    folded = fold_sse_bytes(encode_stream(events))
    assert folded is not None and folded["output"][0]["content"][0]["text"] == "one two three four"


def test_many_concurrent_clients_each_get_one_answer() -> None:
    script = [{"text": f"answer {i}"} for i in range(10)]
    with serve_script(script, pace="recorded") as server:

        def ask(_: int) -> str:
            with httpx.Client(timeout=30) as client:
                folded = fold_sse_bytes(client.post(server.url + "/v1/responses", json=STREAM).content)
            assert folded is not None
            return str(folded["output"][0]["content"][0]["text"])

        with concurrent.futures.ThreadPoolExecutor(10) as pool:
            texts = sorted(pool.map(ask, range(10)))
        report = server.report
    assert texts == sorted(f"answer {i}" for i in range(10))
    assert report.served == 10


def test_script_events_have_deterministic_ids() -> None:
    def run() -> bytes:
        with serve_script([{"text": "a"}, {"function_call": {"name": "f"}}]) as server:
            with httpx.Client(timeout=30) as client:
                return b"".join(
                    client.post(server.url + "/v1/responses", json=STREAM).content for _ in range(2)
                )

    first, second = run(), run()
    strip = [json.loads(data) for _, data in SseParser().feed(first)]
    ids = [e["item"]["id"] for e in strip if e["type"] == "response.output_item.done"]
    assert ids == ["msg_0001_0", "fc_0002_0"]
    # equal apart from created_at
    assert _no_time(first) == _no_time(second)


def _no_time(raw: bytes) -> str:
    return re.sub(rb'"created_at": \d+', b"", raw).decode()


def test_a_request_without_stream_gets_the_final_response_as_json() -> None:
    with serve_script([{"text": "plain"}, {"text": "lost", "cut": True}]) as server:
        client = _client(server.url)
        response = client.responses.create(model="gpt-5-codex", input="hi")
        with pytest.raises(openai.APIStatusError) as err:
            client.responses.create(model="gpt-5-codex", input="hi")
        client.close()
    assert response.output_text == "plain" and response.id == "resp_0001"
    assert err.value.status_code == 502


def test_a_recorder_riding_along_records_scripted_streams_as_events(tmp_path: Path) -> None:
    """How the harness captures scripted runs: the Recorder in the same proxy as the replayer."""
    path = tmp_path / "capture.jsonl"
    writer = RecordingWriter(path, meta={})
    recorder = Recorder(writer)
    body = {"model": "m", "input": [{"type": "message", "role": "user", "content": "hi"}], "stream": True}
    with serve_script([{"text": "scripted answer"}], extra_addons=[recorder], pace="recorded") as server:
        with httpx.Client(timeout=30) as client:
            client.post(server.url + "/v1/responses", json=body)
        assert recorder.wait_for(1)
    writer.close()
    [exchange] = read_recording(path).exchanges
    assert exchange.url == "http://127.0.0.1:9/v1/responses"  # not the pacer's address
    assert not any(name.lower().startswith("x-ctxscope") for name in exchange.request_headers)
    assert exchange.sse and exchange.response is not None
    assert exchange.response["output"][0]["content"][0]["text"] == "scripted answer"
    # and the capture replays strictly
    with serve_cassette(path) as server, httpx.Client(timeout=30) as client:
        again = client.post(server.url + "/v1/responses", json=body)
        assert server.report.problems() == []
    folded = fold_sse_bytes(again.content)
    assert folded is not None and folded["output"][0]["content"][0]["text"] == "scripted answer"

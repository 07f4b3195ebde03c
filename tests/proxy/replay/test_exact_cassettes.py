"""Byte-exact cassettes: a corpus of odd but real-shaped streams, recorded by a real `ctxscope proxy`
in front of a local upstream and replayed by the real Replayer, reaches clients byte for byte.

The same requests go out twice, live (through the recorder) and on replay: raw bodies over httpx must
be identical (and equal to what the upstream sent), and openai-python must see the same events and
end the same way (a clean end, a cut, or its own error on a block it cannot parse).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from ctxscope.proxy.replay import serve_cassette
from ctxscope.proxy.store import read_recording
from ctxscope.proxy.testing import FakeUpstream, RawReply, RecordedRequest, Reply, SseReply
from tests.proxy.replay.sse_corpus_support import CORPUS, JSON_BODIES, CorpusStream
from tests.proxy.test_capture_cli import LINE_TIMEOUT_S, Proc

pytestmark = pytest.mark.slow

BY_NAME = {stream.name: stream for stream in CORPUS}
TIMEOUT = 20.0


@dataclass
class Seen:
    """What one client got for each corpus stream."""

    raw: dict[str, bytes] = field(default_factory=dict)
    events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    ending: dict[str, str] = field(default_factory=dict)


def _answer(request: RecordedRequest) -> Reply:
    name = request.json()["input"]
    if name in JSON_BODIES:
        status, body = JSON_BODIES[name]
        return RawReply(body, status=status, content_type="application/json")
    stream = BY_NAME[name]
    chunks = stream.chunks()
    return SseReply(list(chunks), cut_after=len(chunks) if stream.cut else None)


def _raw(client: httpx.Client, base: str, stream: CorpusStream) -> bytes:
    got = b""
    body = {"model": "corpus-model", "input": stream.name, "stream": True}
    try:
        with client.stream("POST", f"{base}/v1/responses", json=body) as response:
            for chunk in response.iter_raw():
                got += chunk
    except httpx.RemoteProtocolError:
        assert stream.cut, f"{stream.name}: connection broke but the stream was not cut"
    return got


def _openai(base: str, stream: CorpusStream, seen: Seen) -> None:
    client = openai.OpenAI(
        base_url=f"{base}/v1", api_key="sk-test-not-a-secret", max_retries=0, timeout=TIMEOUT
    )
    events: list[dict[str, Any]] = []
    ending = "end of stream"
    try:
        for event in client.responses.create(model="corpus-model", input=stream.name, stream=True):
            events.append(event.to_dict())
    except Exception as err:  # noqa: BLE001 - how the client fails is what is compared
        ending = f"{type(err).__name__}"
    finally:
        client.close()
    seen.events[stream.name], seen.ending[stream.name] = events, ending


def _drive(base: str) -> Seen:
    seen = Seen()
    with httpx.Client(timeout=TIMEOUT) as client:
        for stream in CORPUS:
            seen.raw[stream.name] = _raw(client, base, stream)
            _openai(base, stream, seen)
        for name in JSON_BODIES:
            body = {"model": "corpus-model", "input": name, "stream": False}
            seen.raw[name] = client.post(f"{base}/v1/responses", json=body).content
    return seen


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Seen, Seen, Path]]:
    home = tmp_path_factory.mktemp("exact-home")
    out = home / "corpus.jsonl"
    env = {**os.environ, "CTXSCOPE_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    with FakeUpstream(handler=_answer) as upstream:
        args = ["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream.url, "--out", str(out)]
        proc = Proc([sys.executable, "-m", "ctxscope.cli", *args], env)
        try:
            proc.expect(r"Ctrl-C to stop")
            base = _listening(proc)
            live = _drive(base)
            proc.popen.send_signal(signal.SIGINT)
            assert proc.popen.wait(timeout=LINE_TIMEOUT_S) == 0
        finally:
            proc.stop()
    with serve_cassette(out, match="strict") as server:
        replayed = _drive(server.url)
        assert server.report.mismatches == []
    yield live, replayed, out


def _listening(proc: Proc) -> str:
    for line in proc.seen:
        if line.startswith("listening on "):
            return line.split()[2]
    raise AssertionError(f"no 'listening on' line in {proc.seen}")


@pytest.mark.parametrize("name", list(BY_NAME))
def test_live_and_replayed_bodies_are_the_bytes_the_upstream_sent(
    runs: tuple[Seen, Seen, Path], name: str
) -> None:
    live, replayed, _ = runs
    assert live.raw[name] == BY_NAME[name].body  # the recorder relays without touching a byte
    assert replayed.raw[name] == live.raw[name]


@pytest.mark.parametrize("name", list(JSON_BODIES))
def test_json_bodies_replay_in_their_own_layout(runs: tuple[Seen, Seen, Path], name: str) -> None:
    live, replayed, _ = runs
    assert live.raw[name] == JSON_BODIES[name][1]
    assert replayed.raw[name] == live.raw[name]


@pytest.mark.parametrize("name", list(BY_NAME))
def test_openai_python_sees_the_same_events_live_and_on_replay(
    runs: tuple[Seen, Seen, Path], name: str
) -> None:
    live, replayed, _ = runs
    assert replayed.events[name] == live.events[name]
    assert replayed.ending[name] == live.ending[name]


def test_what_the_clients_saw_is_what_each_stream_is(runs: tuple[Seen, Seen, Path]) -> None:
    live, _, path = runs
    # openai-python fails on `event: ping` (no data to parse): live and on replay alike
    assert live.ending["event_line_without_data"] != "end of stream"
    assert live.ending["cut_mid_event"] != "end of stream"
    assert live.ending["reasoning_summary_crlf"] == "end of stream"
    types = [e["type"] for e in live.events["unterminated_last_event"]]
    assert "response.completed" not in types and types[-1] == "response.output_item.done"
    assert live.events["refusal_plain"][-1]["type"] == "response.completed"
    assert live.events["reasoning_text_cr_nospace"][-1]["type"] == "response.completed"
    # (openai-python 2.x dispatches an empty event for a comment-only block once an `id:` was seen,
    # so it stops early on `tools_with_comments`; the same live and on replay, which is the point.)
    recording = read_recording(path)
    statuses = {}
    for exchange in recording.exchanges:
        name = exchange.request_body["input"] if isinstance(exchange.request_body, dict) else None
        statuses[name] = (exchange.response or {}).get("status")
    assert statuses["unterminated_last_event"] == "in_progress"  # the unsent terminal event is not folded
    assert statuses["error_event"] == "failed" and statuses["refusal_plain"] == "completed"
    layouts = {
        e.request_body["input"]: (e.response_layout, e.response_raw is not None) for e in recording.exchanges
    }
    assert layouts["json_indented"] == ("indent2+nl", False)
    assert layouts["json_compact_ascii"] == ("compact-ascii", False)
    assert layouts["json_odd_layout"] == (None, True)  # no standard layout: the text itself is kept

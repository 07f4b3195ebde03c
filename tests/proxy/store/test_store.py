"""The recording file: round trips, dedupe, redaction, damaged files, appends, the info/export commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.proxy.errors import RecordingError
from ctxscope.proxy.model import Exchange, SseEvent, TransportError
from ctxscope.proxy.store import RecordingWriter, read_recording

SECRET_KEY = "sk-proj-PLANTEDsecretKEY0123456789abcdef"
SECRET_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkLXVzZXIifQ.c2lnbmF0dXJlLXBsYW50ZWQtc2VjcmV0"


def make_exchange(turn: int, items: list[dict], **extra: object) -> Exchange:
    body = {
        "model": "gpt-test",
        "instructions": "You are a test model. " * 10,
        "tools": [{"type": "function", "name": "exec_command", "parameters": {"type": "object"}}],
        "input": items,
        "stream": True,
        "prompt_cache_key": "thread-1",
    }
    fields: dict[str, object] = dict(
        id=-1,
        started_at=1000.0 + turn,
        ended_at=1000.5 + turn,
        method="POST",
        url="http://127.0.0.1:1/v1/responses",
        endpoint="responses",
        status=200,
        request_headers={"content-type": "application/json", "session-id": "thread-1"},
        request_body=body,
        request_size=len(json.dumps(body)),
        sse=[SseEvent(t_ms=1.5, event="response.completed", data='{"type":"response.completed"}')],
        response={
            "id": f"resp_{turn}",
            "status": "completed",
            "output": [_msg("assistant", f"answer {turn}")],
            "usage": {"input_tokens": 10 * turn, "output_tokens": 3},
        },
    )
    fields.update(extra)
    return Exchange.model_validate(fields)


def _msg(role: str, text: str) -> dict:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def growing_session(path: Path, turns: int) -> list[list[dict]]:
    inputs: list[list[dict]] = []
    items: list[dict] = []
    with RecordingWriter(path, meta={"cwd": "/repo"}) as writer:
        for turn in range(turns):
            items = items + [_msg("user", f"question {turn} " + "context " * 50)]
            inputs.append(list(items))
            writer.write(make_exchange(turn, list(items)))
            items = items + [_msg("assistant", f"answer {turn}")]
    return inputs


def test_round_trip_resolves_every_body(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    inputs = growing_session(path, 12)
    recording = read_recording(path)
    assert recording.warnings == []
    assert [e.id for e in recording.exchanges] == list(range(12))
    for exchange, expected in zip(recording.exchanges, inputs, strict=True):
        assert exchange.request_body["input"] == expected
        assert exchange.request_body["model"] == "gpt-test"
        assert exchange.response["output"] == [_msg("assistant", f"answer {exchange.id}")]
        assert list(exchange.request_body) == [
            "model",
            "instructions",
            "tools",
            "input",
            "stream",
            "prompt_cache_key",
        ]


def test_growing_input_is_stored_as_reference_plus_appended(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    growing_session(path, 40)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    exchanges = [line for line in lines if line["kind"] == "exchange"]
    # after the first turn, each input is a reference to the previous one plus the two new items
    for line in exchanges[1:]:
        ref = line["request_body"]["input"]["$items"]
        assert ref["base"] == line["id"] - 1
        assert len(ref["add"]) == 2
    raw = sum(len(json.dumps(e.request_body)) for e in read_recording(path).exchanges)
    assert path.stat().st_size < raw / 5  # grows with what changed, not turns × context


def test_secrets_never_reach_the_file(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    exchange = make_exchange(
        0,
        [_msg("user", f"my key is {SECRET_KEY}")],
        url=f"http://127.0.0.1:1/v1/responses?api_key={SECRET_KEY}&x=1",
        request_headers={
            "Authorization": f"Bearer {SECRET_KEY}",
            "ChatGPT-Account-ID": "acct-PLANTED-42",
            "Cookie": "session=PLANTEDcookie",
            "x-api-key": "PLANTEDxapikey",
        },
        response_headers={"set-cookie": "sid=PLANTEDsetcookie"},
        error=TransportError(kind="other", message=f"failed with {SECRET_JWT}"),
    )
    with RecordingWriter(path) as writer:
        writer.write(exchange)
        writer.write(make_exchange(1, [_msg("user", "ok")], request_body={"refresh_token": "PLANTEDrefresh"}))
    data = path.read_text()
    for planted in (
        SECRET_KEY,
        SECRET_JWT,
        "acct-PLANTED-42",
        "PLANTEDcookie",
        "PLANTEDxapikey",
        "PLANTEDsetcookie",
        "PLANTEDrefresh",
    ):
        assert planted not in data
    recording = read_recording(path)
    first = recording.exchanges[0]
    assert first.request_headers["Authorization"] == "Bearer <redacted:api_key:1>"  # named by its shape
    # deterministic: the same secret gets the same placeholder in another file
    path2 = tmp_path / "rec2.jsonl"
    with RecordingWriter(path2) as writer:
        writer.write(exchange)
    assert read_recording(path2).exchanges[0].request_headers == first.request_headers


def test_raw_bytes_bodies_are_parsed_or_kept_as_text(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    with RecordingWriter(path) as writer:
        writer.write(make_exchange(0, [], request_body=b'{"model": "m", "input": []}', request_size=0))
        writer.write(make_exchange(1, [], request_body=b"{not json", request_size=0, endpoint="other"))
    first, second = read_recording(path).exchanges
    assert first.request_body == {"model": "m", "input": []}
    assert second.request_body is None and second.request_text == "{not json" and second.request_size == 9


def test_torn_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    growing_session(path, 5)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 40])  # cut into the last exchange line
    recording = read_recording(path)
    assert [e.id for e in recording.exchanges] == [0, 1, 2, 3]
    assert "incomplete" in recording.warnings[0]
    # a writer can append after the torn line; the new exchange and all old ones load
    with RecordingWriter(path) as writer:
        writer.write(make_exchange(9, [_msg("user", "after the tear")]))
    again = read_recording(path)
    assert [e.id for e in again.exchanges] == [0, 1, 2, 3, 4]
    assert again.exchanges[-1].request_body["input"][0]["content"][0]["text"] == "after the tear"


def test_killed_writer_leaves_a_loadable_file(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    script = f"""
import sys, time
sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})
from tests.proxy.store.test_store import make_exchange, _msg
from ctxscope.proxy.store import RecordingWriter
writer = RecordingWriter({str(path)!r})
items = []
for turn in range(100000):
    items = items + [_msg("user", "q" * 2000)]
    writer.write(make_exchange(turn, list(items[-50:])))
    if turn == 20:
        print("ready", flush=True)
"""
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
            proc.kill()  # SIGKILL, mid-session
        finally:
            proc.wait(timeout=30)
    recording = read_recording(path)
    assert len(recording.exchanges) > 20
    assert all(len(e.request_body["input"]) >= 1 for e in recording.exchanges)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"hello world\n", "not a ctxscope recording"),
        (b'{"kind": "header", "format": "other-tool"}\n', "not a ctxscope recording"),
        (
            b'{"kind": "header", "format": "ctxscope-recording", "version": "7.0", '
            b'"created_at": 0, "tool": "x"}\n',
            "newer ctxscope",
        ),
    ],
)
def test_bad_files_get_one_line_errors(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordingError, match=message):
        read_recording(path)
    proc = subprocess.run(
        [sys.executable, "-m", "ctxscope.cli", "info", str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and message in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_appending_to_a_foreign_file_refuses_and_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("precious notes\n")
    with pytest.raises(RecordingError, match="cannot be appended"):
        RecordingWriter(path)
    assert path.read_text() == "precious notes\n"


def test_info_and_export_commands(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    inputs = growing_session(path, 3)
    env = {**os.environ, "NO_COLOR": "1"}
    info = subprocess.run(
        [sys.executable, "-m", "ctxscope.cli", "info", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert info.returncode == 0, info.stderr
    summary = json.loads(info.stdout)
    assert summary["exchanges"] == 3 and summary["models"] == {"gpt-test": 3} and summary["threads"] == 1
    assert summary["input_tokens"] == 30
    export = subprocess.run(
        [sys.executable, "-m", "ctxscope.cli", "export", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    bodies = [json.loads(line) for line in export.stdout.splitlines()]
    assert [b["input"] for b in bodies] == inputs
    responses = subprocess.run(
        [sys.executable, "-m", "ctxscope.cli", "export", str(path), "--what", "responses"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert [json.loads(line)["id"] for line in responses.stdout.splitlines()] == [
        "resp_0",
        "resp_1",
        "resp_2",
    ]


def test_long_session_resolves_shared_items_once(tmp_path: Path) -> None:
    """A 300-turn file loads completely, and an item repeated in every request is one shared object."""
    path = tmp_path / "rec.jsonl"
    growing_session(path, 300)
    recording = read_recording(path)
    assert len(recording.exchanges) == 300
    assert len(recording.exchanges[-1].request_body["input"]) == 599
    first_items = [e.request_body["input"][0] for e in recording.exchanges]
    assert all(item is first_items[0] for item in first_items)


def _compact(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def test_sse_events_round_trip_byte_for_byte_and_echoed_parts_are_stored_once(tmp_path: Path) -> None:
    """Real streams echo instructions and tools in response.created/completed every turn: stored once."""
    instructions = "Base instructions. " * 400
    tools = [{"type": "function", "name": f"tool_{i}", "description": "d" * 300} for i in range(10)]
    item = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "hi"}],
    }

    def stream(turn: int) -> list[SseEvent]:
        response = {"id": f"resp_{turn}", "instructions": instructions, "tools": tools, "output": []}
        done = {**response, "output": [item], "usage": {"input_tokens": 5}}
        return [
            SseEvent(
                t_ms=1.0,
                event="response.created",
                data=_compact({"type": "response.created", "response": response}),
            ),
            SseEvent(
                t_ms=2.0,
                event="response.output_item.done",
                data=_compact({"type": "response.output_item.done", "item": item}),
            ),
            SseEvent(
                t_ms=2.5,
                event="response.output_text.delta",
                data='{"type": "response.output_text.delta", "delta": "spaced json stays raw"}',
            ),
            SseEvent(
                t_ms=3.0,
                event="response.completed",
                data=_compact({"type": "response.completed", "response": done}),
            ),
            SseEvent(t_ms=3.5, data="[DONE]"),
        ]

    path = tmp_path / "rec.jsonl"
    with RecordingWriter(path) as writer:
        for turn in range(30):
            rebuilt = {"id": f"resp_{turn}", "instructions": instructions, "tools": tools, "output": [item]}
            writer.write(make_exchange(turn, [_msg("user", "q")], sse=stream(turn), response=rebuilt))
    recording = read_recording(path)
    for exchange in recording.exchanges:
        assert [e.data for e in exchange.sse] == [e.data for e in stream(exchange.id)]
        assert [e.event for e in exchange.sse] == [e.event for e in stream(exchange.id)]
        assert exchange.response == {
            "id": f"resp_{exchange.id}",
            "instructions": instructions,
            "tools": tools,
            "output": [item],
        }
    echoed = len(_compact(tools)) + len(instructions)
    assert path.stat().st_size < 2 * echoed + 30 * 1500  # echoes stored once, not 60 times


def test_secrets_in_sse_events_are_redacted(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    data = _compact(
        {"type": "response.output_text.delta", "delta": f"here is {SECRET_KEY} for you " + "x" * 80}
    )
    with RecordingWriter(path) as writer:
        writer.write(make_exchange(0, [_msg("user", "q")], sse=[SseEvent(t_ms=1.0, data=data)]))
    assert SECRET_KEY not in path.read_text()
    assert "<redacted:api_key:" in read_recording(path).exchanges[0].sse[0].data


def test_header_metadata_is_redacted(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    meta = {
        "upstream": "https://user:PLANTEDpw@example.test/v1?key=PLANTEDquery",
        "access_token": "PLANTEDtok",
    }
    with RecordingWriter(path, meta={**meta, "cwd": "/repo"}):
        pass
    data = path.read_text()
    assert "PLANTED" not in data
    header = read_recording(path).header
    assert header.meta["cwd"] == "/repo" and header.meta["upstream"].startswith("https://<redacted:userinfo:")


def test_info_groups_thousands() -> None:
    from tests.cli_support import run_cli

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "inspector" / "backend_apikey.jsonl"
    shown = run_cli("info", str(fixture))
    assert shown.returncode == 0 and "tokens      2,400 in, 40 out\n" in shown.stdout, shown.stdout

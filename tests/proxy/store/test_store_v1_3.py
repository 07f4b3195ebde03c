"""Format 1.3: the same session written as 1.2 and as 1.3 reads, analyses and replays identically.

The sessions are real Codex captures (`tests/fixtures/codex`, `tests/fixtures/inspector/real`: Codex
0.169 / 0.171 through the recording proxy, over HTTP and WebSocket) and Codex-shaped streams with
Codex's per-request metadata, each exchange written by the real `RecordingWriter` once in each
version. Compared: every exchange as read, the analysis's turn documents (what every view renders),
and the bytes a real replay server sends for each request.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.html.build import report_data
from ctxscope.proxy.errors import RecordingWriteError
from ctxscope.proxy.model import Exchange, SseEvent
from ctxscope.proxy.replay import serve_cassette
from ctxscope.proxy.responses import fold_events
from ctxscope.proxy.store import RecordingWriter, read_recording
from ctxscope.proxy.store.codec import time_steps, times_of
from tests.proxy.store.test_store import _msg, make_exchange
from tests.proxy.store.test_store_derive import DUMPS, codex_events, stored_stream

FIXTURES = Path(__file__).parents[2] / "fixtures"
REAL = {
    "codex-0.171.0": FIXTURES / "codex" / "codex-0.171.0.jsonl",
    "codex-0.169.0": FIXTURES / "codex" / "codex-0.169.0.jsonl",
    "ci-7": FIXTURES / "codex" / "ci-7.jsonl",
    "tour": FIXTURES / "inspector" / "real" / "tour.jsonl",
    "websocket": FIXTURES / "inspector" / "real" / "codex_ws.jsonl",
}
TURN_METADATA = json.dumps(
    {
        "installation_id": "bbffa26c-b95c-449d-9da9-c6ce9188908a",
        "session_id": "01a2339e-a920-7f92-a7ff-d3e35b7dcdd8",
        "turn_id": "01a2339e-a956-79f3-a03b-c20644e993fe",
        "sandbox_mode": "workspace-write",
        "workspaces": {"/home/dev/repo": {"has_changes": True}},
    },
    separators=(",", ":"),
)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _exchange_lines(path: Path) -> list[dict[str, Any]]:
    return [line for line in _lines(path) if line["kind"] == "exchange"]


def codex_shaped(turns: int) -> list[Exchange]:
    """A growing thread with Codex-shaped streams (arrival times as the recorder rounds them) and
    Codex's metadata: `x-codex-turn-metadata` in the headers and `client_metadata`, whose keys come in
    a new order each request."""
    rng = random.Random(5)
    items: list[dict[str, Any]] = []
    exchanges = []
    for turn in range(turns):
        items.append(_msg("user", f"turn {turn}: what next?"))
        events = codex_events(turn=turn)
        t, sse = rng.uniform(200, 900), []
        for event in events:
            sse.append(SseEvent(t_ms=round(t, 3), event=str(event["type"]), data=DUMPS["compact"](event)))
            t += rng.uniform(0.05, 40)
        metadata = {"turn_id": f"turn-{turn // 3}", "x-codex-turn-metadata": TURN_METADATA, "session_id": "s-1"}
        keys = list(metadata)
        rng.shuffle(keys)
        exchange = make_exchange(
            turn,
            list(items),
            sse=sse,
            request_headers={
                "content-type": "application/json",
                "x-codex-turn-metadata": TURN_METADATA,
                "x-client-request-id": f"req-{turn}",
            },
        )
        assert isinstance(exchange.request_body, dict)
        exchange.request_body["client_metadata"] = {key: metadata[key] for key in keys}

        exchange.response = fold_events(events)
        exchanges.append(exchange)
        items.append(_msg("assistant", f"answer {turn}"))
    return exchanges


def write_both(exchanges: list[Exchange], where: Path) -> dict[str, Path]:
    paths = {}
    for version in ("1.2", "1.3"):
        paths[version] = where / f"v{version}.jsonl"
        with RecordingWriter(paths[version], meta={"cwd": "/home/dev/repo"}, version=version) as writer:
            for exchange in exchanges:
                writer.write(exchange)
    return paths


def sessions(tmp_path: Path) -> dict[str, dict[str, Path]]:
    out = {}
    for name, fixture in REAL.items():
        where = tmp_path / name
        where.mkdir()
        out[name] = write_both(read_recording(fixture).exchanges, where)
    where = tmp_path / "codex-shaped"
    where.mkdir()
    out["codex-shaped"] = write_both(codex_shaped(6), where)
    return out


def test_both_versions_read_analyse_and_size_up(tmp_path: Path) -> None:
    for name, paths in sessions(tmp_path).items():
        old, new = (read_recording(path) for path in paths.values())
        assert (old.header.version, new.header.version) == ("1.2", "1.3")
        assert not old.warnings and not new.warnings, name
        dumps = [[e.model_dump(mode="json") for e in r.exchanges] for r in (old, new)]
        assert dumps[0] == dumps[1], name  # every field of every exchange
        assert [[e.encode() for e in x.sse] for x in old.exchanges] == [
            [e.encode() for e in x.sse] for x in new.exchanges
        ], name  # SSE blocks byte for byte, framing included
        documents = []
        for path in paths.values():
            data = report_data(analyse_recording(path))
            documents.append(json.dumps({"turns": data.turns, "texts": data.texts}, sort_keys=True))
        assert documents[0] == documents[1], name  # the turn documents every view renders
        assert json.loads(documents[0])["turns"], name
        assert paths["1.3"].stat().st_size < paths["1.2"].stat().st_size, name


def _replayed(path: Path, bodies: list[Any]) -> list[bytes]:
    """The bytes a replay server sends back for each request, in order."""
    out = []
    with serve_cassette(path, match="sequential") as server, httpx.Client(timeout=30) as client:
        for body in bodies:
            response = client.post(server.url + "/v1/responses", json=body)
            out.append(response.content)
    return out


@pytest.mark.parametrize("name", ["codex-0.171.0", "tour", "codex-shaped"])
def test_both_versions_replay_the_same_bytes(tmp_path: Path, name: str) -> None:
    if name == "codex-shaped":
        paths = write_both(codex_shaped(4), tmp_path)
    else:
        paths = write_both(read_recording(REAL[name]).exchanges, tmp_path)
    recorded = read_recording(paths["1.2"]).model_requests()
    bodies = [exchange.request_body for exchange in recorded]
    old, new = (_replayed(path, bodies) for path in paths.values())
    assert old == new
    # and what was received, block for block (a replay sends the recorded bytes)
    assert old == [b"".join(event.encode() for event in exchange.sse) for exchange in recorded]
    assert all(old)


def test_what_1_3_stores_differently(tmp_path: Path) -> None:
    paths = write_both(codex_shaped(6), tmp_path)
    lines = _exchange_lines(paths["1.3"])
    first, second = lines[0], lines[1]
    # event times: integer microsecond steps
    assert "dt" in second["sse"] and "t_ms" not in second["sse"]
    assert all(type(step) is int for step in second["sse"]["dt"])
    # the response: the one before it plus what changed (id, output, usage, created_at ...)
    assert "$as" not in first["response"] and second["response"]["$as"] == first["id"]
    assert "instructions" not in second["response"] and "tools" not in second["response"]
    # the 1 KB turn metadata: inline the first time, a blob from its second appearance on
    assert first["request_headers"]["$set"]["x-codex-turn-metadata"] == TURN_METADATA
    assert set(second["request_headers"]["$set"]["x-codex-turn-metadata"]) == {"$blob"}
    # client_metadata: a blob with this request's key order
    metadata = [line["request_body"].get("client_metadata") for line in lines[1:]]
    assert any(isinstance(m, dict) and "$blob" in m for m in metadata)
    assert any(isinstance(m, dict) and "$order" in m for m in metadata)
    text = paths["1.3"].read_text("utf-8")
    assert text.count(TURN_METADATA.replace('"', '\\"')) < paths["1.2"].read_text("utf-8").count(
        TURN_METADATA.replace('"', '\\"')
    )
    assert stored_stream(paths["1.3"], 1) == stored_stream(paths["1.2"], 1)  # the derived events alike


def test_times_that_are_not_whole_microseconds_stay_floats(tmp_path: Path) -> None:
    assert time_steps([0.5, 1.25, 3.001]) == [500, 750, 1751]
    assert times_of([500, 750, 1751]) == [0.5, 1.25, 3.001]
    for odd in ([1.0001], [-1.0], [-0.0], [float("inf")], [float("nan")]):
        assert time_steps(odd) is None
    exchange = codex_shaped(1)[0]
    exchange.sse = [e.model_copy(update={"t_ms": e.t_ms + 1e-4}) for e in exchange.sse]
    path = tmp_path / "r.jsonl"
    with RecordingWriter(path) as writer:
        writer.write(exchange)
    (line,) = _exchange_lines(path)
    assert "t_ms" in line["sse"] and "dt" not in line["sse"]
    assert [e.t_ms for e in read_recording(path).exchanges[0].sse] == [e.t_ms for e in exchange.sse]


def test_a_1_2_file_stays_1_2_when_appended_to(tmp_path: Path) -> None:
    source = write_both(codex_shaped(3), tmp_path)["1.2"]
    path = tmp_path / "appended.jsonl"
    shutil.copy(source, path)
    before = path.read_bytes()
    more = codex_shaped(5)[3:]
    with RecordingWriter(path) as writer:
        assert writer.version == "1.2"
        for exchange in more:
            writer.write(exchange)
    assert path.read_bytes().startswith(before)
    added = _exchange_lines(path)[3:]
    assert len(added) == 2
    for line in added:
        assert "dt" not in line["sse"] and "$as" not in line["response"]
        assert all(not isinstance(v, dict) for v in line["request_headers"].get("$set", {}).values())
    recording = read_recording(path)
    assert recording.header.version == "1.2" and not recording.warnings
    assert [[e.encode() for e in x.sse] for x in recording.exchanges[3:]] == [[e.encode() for e in x.sse] for x in more]


def test_a_failed_write_leaves_no_response_base_behind(tmp_path: Path) -> None:
    """A response's `$as` names only a response whose line reached the file."""
    path = tmp_path / "r.jsonl"
    exchanges = codex_shaped(3)
    with RecordingWriter(path) as writer:
        writer.write(exchanges[0])
        real_fd = writer._fd
        writer._fd = _closed_fd()  # the next write fails (EBADF), as on a full disk
        with pytest.raises(RecordingWriteError, match="cannot write"):
            writer.write(exchanges[1])
        writer._fd = real_fd
        assert writer.held == 1
        writer.write(exchanges[2])  # the held exchange first, then this one
    lines = _exchange_lines(path)
    assert [line["id"] for line in lines] == [0, 1, 2]
    ids = {line["id"] for line in lines}
    for line in lines:
        base = line["response"].get("$as")
        assert base is None or (base in ids and base < line["id"])
    recording = read_recording(path)
    assert not recording.warnings and len(recording.exchanges) == 3


def _closed_fd() -> int:
    fd = os.open(os.devnull, os.O_RDONLY)
    os.close(fd)
    return fd

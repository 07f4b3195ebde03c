"""Following a recording while the real writer appends to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.proxy.errors import RecordingError
from ctxscope.proxy.model import Exchange
from ctxscope.proxy.store import RecordingWriter, read_recording
from ctxscope.proxy.store.follow import RecordingFollower


def exchange(n: int, text: str = "hi") -> Exchange:
    return Exchange(
        id=n,
        started_at=1_800_000_000.0 + n,
        method="POST",
        url="http://127.0.0.1:9/v1/responses",
        endpoint="responses",
        status=200,
        request_body={"model": "m", "input": [{"type": "message", "role": "user", "content": text}]},
        response={"id": f"r{n}", "status": "completed", "output": []},
    )


def test_each_poll_returns_what_was_appended(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    with RecordingWriter(path, meta={"mode": "test"}) as writer:
        follower = RecordingFollower(path)
        assert follower.poll() == [] and follower.header is not None
        writer.write(exchange(writer.next_id()))
        assert [e.id for e in follower.poll()] == [0]
        assert follower.poll() == []
        writer.write(exchange(writer.next_id(), "again"))
        writer.write(exchange(writer.next_id(), "hi"))  # a repeated part: resolved from the first
        new = follower.poll()
    assert [e.id for e in new] == [1, 2]
    loaded = read_recording(path).exchanges
    assert [e.request_body for e in follower.exchanges] == [e.request_body for e in loaded]


def test_a_torn_last_line_waits_for_its_end(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    with RecordingWriter(path, meta={"mode": "test"}) as writer:
        writer.write(exchange(writer.next_id()))
    complete = path.read_bytes()
    first, last = complete.rstrip(b"\n").rsplit(b"\n", 1)
    path.write_bytes(first + b"\n" + last[: len(last) // 2])
    follower = RecordingFollower(path)
    assert follower.poll() == [] and follower.waiting_line
    with path.open("ab") as fh:
        fh.write(last[len(last) // 2 :] + b"\n")
    assert [e.id for e in follower.poll()] == [0]
    assert not follower.waiting_line and follower.warnings == []


def test_deleted_shrunk_or_foreign_files_are_one_line_errors(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    with RecordingWriter(path, meta={"mode": "test"}) as writer:
        writer.write(exchange(writer.next_id()))
    follower = RecordingFollower(path)
    follower.poll()
    path.write_text("{}\n")
    with pytest.raises(RecordingError, match="shrank"):
        follower.poll()
    path.unlink()
    with pytest.raises(RecordingError, match="deleted while following"):
        follower.poll()
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text("hello\n")
    with pytest.raises(RecordingError, match="not a ctxscope recording"):
        RecordingFollower(foreign).poll()

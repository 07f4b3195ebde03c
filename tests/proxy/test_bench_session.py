"""The benchmarks' growing session is the file the real writer makes: writing it with the writer told
which item objects repeat (fast enough for 5,000 turns) gives the same lines as hashing every item of
every request again, as the proxy's writer does."""

from __future__ import annotations

from pathlib import Path

from benchmarks.bench_analysis import build, write
from ctxscope.proxy.store import read_recording


def test_shared_items_writer_writes_the_same_file(tmp_path: Path) -> None:
    bodies = build(230)  # crosses two environment changes (every 100 turns)
    write(bodies, tmp_path / "shared.jsonl")
    write(bodies, tmp_path / "plain.jsonl", shared_items=False)
    shared, plain = ((tmp_path / f"{n}.jsonl").read_bytes().splitlines() for n in ("shared", "plain"))
    assert len(shared) == len(plain) > 230
    assert shared[1:] == plain[1:]  # the header differs in its `created_at` only
    assert shared[0].split(b'"created_at"')[0] == plain[0].split(b'"created_at"')[0]
    recording = read_recording(tmp_path / "shared.jsonl")
    assert [e.request_body["input"] for e in recording.exchanges] == [b["input"] for b in bodies]

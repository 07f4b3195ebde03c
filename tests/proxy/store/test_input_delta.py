"""The reader hands each request's input as its base plus what was added (issue 36): a real list
(`InputList`) naming the earlier exchange's list it extends and how many items it keeps, and the
stored hashes of each input made from the file's references when asked (`InputHashes`)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.bench_analysis import build, write
from ctxscope.proxy.store import InputList, read_recording
from ctxscope.proxy.store.lines import LineDecoder
from ctxscope.proxy.store.reader import iter_lines
from tests.inspector.test_growth_golden import _branching


def _decode(path: Path) -> LineDecoder:
    lines = LineDecoder(path)
    for number, raw, is_last in iter_lines(path):
        lines.take(number, raw, is_last=is_last)
    return lines


def test_inputs_name_their_base_and_match_what_was_sent(tmp_path: Path) -> None:
    bodies = _branching(40)
    path = tmp_path / "branching.jsonl"
    write(bodies, path)
    recording = read_recording(path)
    exchanges = recording.exchanges
    assert [e.request_body["input"] for e in exchanges] == [b["input"] for b in bodies]
    by_list = {id(e.request_body["input"]): e.id for e in exchanges}
    kinds = set()
    for exchange in exchanges:
        items = exchange.request_body["input"]
        assert isinstance(items, InputList) and isinstance(items, list)
        assert json.loads(json.dumps(items)) == items  # a list to every reader of a body
        if items.base is None:
            kinds.add("new")
            assert items.keep == 0
            continue
        assert id(items.base) in by_list and by_list[id(items.base)] < exchange.id
        assert items[: items.keep] == items.base[: items.keep]
        assert items.added() == items[items.keep :]
        kinds.add("append" if items.keep == len(items.base) else "branch")
    assert kinds == {"new", "append", "branch"}  # the rewrite, retry and restart are in the file


def test_input_hashes_made_from_the_references(tmp_path: Path) -> None:
    bodies = _branching(40) + build(12)[5:]  # ends with a branch off an early turn
    path = tmp_path / "hashes.jsonl"
    write(bodies, path)
    decoder = _decode(path).decoder
    hashes = decoder.input_hashes
    ids = sorted(decoder.input_items)
    assert list(hashes) == ids and len(hashes) == len(bodies)
    for exchange_id in [*ids, *reversed(ids)]:  # in order (the reader's walk) and backwards
        got = hashes[exchange_id]
        assert [decoder.blobs[h] for h in got] == decoder.input_items[exchange_id]
        assert hashes.length(exchange_id) == len(got)
        got.append("changed by a caller")  # the caller's copy: the map stays as it was
        assert hashes[exchange_id][-1] != "changed by a caller"
    assert read_recording(path).input_hashes[ids[-1]] == hashes[ids[-1]]


def test_a_file_with_ids_read_twice_is_read_as_before(tmp_path: Path) -> None:
    # A writer given exchanges with preset ids appends them as they are (a test's hand-made recording
    # written twice to one path, two recordings concatenated): a base then names the latest line with
    # that id, which could be the exchange's own id. Reading ends, and each line's input is what it sent.
    from ctxscope.proxy.model import Exchange
    from ctxscope.proxy.store import RecordingWriter

    bodies = build(6)
    path = tmp_path / "twice.jsonl"
    for _ in range(2):
        with RecordingWriter(path, meta={"mode": "hand-made"}) as writer:
            for n, body in enumerate(bodies):
                writer.write(Exchange(id=n, started_at=1.0 + n, method="POST", url="http://127.0.0.1:9/v1/responses",
                                      endpoint="responses", status=200, request_body=body))
    exchanges = read_recording(path).exchanges
    assert [e.id for e in exchanges] == [n for n in range(6) for _ in range(2)]  # the reader orders by id
    assert [e.request_body["input"] for e in exchanges] == [b["input"] for b in bodies for _ in range(2)]
    decoder = _decode(path).decoder
    assert [[decoder.blobs[h] for h in decoder.input_hashes[n]] for n in range(6)] == [b["input"] for b in bodies]

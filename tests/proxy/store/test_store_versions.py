"""Older recordings: 1.0 and 1.1 files read as before, and appending keeps a file in its own version."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxscope.proxy.errors import RecordingError
from ctxscope.proxy.store import FORMAT_VERSION, RecordingWriter, read_recording
from ctxscope.proxy.store.json_layout import render
from tests.fixtures.store.make_v1_1 import BODY_RAW, ITEM, exchanges, streams
from tests.proxy.store.test_store_derive import as_exchange, codex_events

FIXTURES = Path(__file__).parents[2] / "fixtures"
V1_1 = FIXTURES / "store" / "v1_1.jsonl"
V1_0 = FIXTURES / "inspector" / "chain.jsonl"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_a_1_1_file_reads_byte_for_byte() -> None:
    recording = read_recording(V1_1)
    assert recording.header.version == "1.1" and not recording.warnings
    first, second, models = recording.exchanges
    for exchange, sent in zip((first, second), streams(), strict=True):
        assert [e.encode() for e in exchange.sse] == [e.encode() for e in sent]
        assert [(e.event, e.t_ms, e.dispatched) for e in exchange.sse] == [
            (e.event, e.t_ms, e.dispatched) for e in sent
        ]
    assert first.response == {"id": "resp_1", "output": [ITEM]}
    assert models.response_layout == "indent2+nl"
    assert render(models.response_body, models.response_layout).decode() == BODY_RAW


def test_appending_to_a_1_1_file_writes_1_1(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    shutil.copy(V1_1, path)
    before = path.read_bytes()
    with RecordingWriter(path) as writer:
        assert writer.version == "1.1"
        writer.write(as_exchange(5, codex_events(), "compact"))
    assert path.read_bytes().startswith(before)  # appended, nothing rewritten
    added = _lines(path)[len(_lines(V1_1)) :]
    exchange_line = json.dumps([line for line in added if line["kind"] == "exchange"])
    assert '"$stream"' not in exchange_line and '"d"' not in exchange_line and '"same"' not in exchange_line
    recording = read_recording(path)
    assert recording.header.version == "1.1" and not recording.warnings
    sent = as_exchange(5, codex_events(), "compact").sse
    assert [e.encode() for e in recording.exchanges[-1].sse] == [e.encode() for e in sent]


def test_appending_to_a_1_0_file_writes_what_1_0_holds(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    shutil.copy(V1_0, path)
    first, second, models = exchanges()
    with RecordingWriter(path) as writer:
        assert writer.version == "1.0"
        for exchange in (first, second, models):
            writer.write(exchange)
    added = [line for line in _lines(path)[len(_lines(V1_0)) :] if line["kind"] == "exchange"]
    text = json.dumps(added)
    for field in ('"wire"', '"$order"', '"response_layout"', '"$stream"'):
        assert field not in text
    recording = read_recording(path)
    assert recording.header.version == "1.0" and not recording.warnings
    new = recording.exchanges[-3:]
    # the events a client saw, in plain form (as 1.0 files replay); the keep-alive block is gone
    assert [e.data for e in new[0].sse] == [e.data for e in streams()[0] if e.dispatched]
    assert all(e.wire is None for e in new[0].sse)
    assert [e.data for e in new[1].sse] == [e.data for e in streams()[1] if e.dispatched]
    assert new[2].response_body == json.loads(BODY_RAW) and new[2].response_layout is None


def test_appending_to_a_newer_minor_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    header = {
        "kind": "header",
        "format": "ctxscope-recording",
        "version": "1.9",
        "created_at": 1.0,
        "tool": "x",
    }
    path.write_text(json.dumps(header) + "\n")
    before = path.read_bytes()
    with pytest.raises(RecordingError) as caught:
        RecordingWriter(path)
    message = str(caught.value)
    assert "\n" not in message and "format 1.9" in message and "upgrade ctxscope" in message
    assert path.read_bytes() == before
    newer = read_recording(path)  # a newer minor still reads, and says what may be missing
    assert newer.header.version == "1.9"
    assert newer.warnings == [
        "format 1.9 is newer than this ctxscope reads (1.3): exchanges in forms it does not know are "
        "skipped; upgrade ctxscope to read them all"
    ]


def test_new_files_are_written_in_the_current_or_a_chosen_version(tmp_path: Path) -> None:
    with RecordingWriter(tmp_path / "a.jsonl") as writer:
        assert writer.version == FORMAT_VERSION == "1.3"
    with RecordingWriter(tmp_path / "b.jsonl", version="1.1") as writer:
        writer.write(as_exchange(0, codex_events(), "compact"))
    assert read_recording(tmp_path / "b.jsonl").header.version == "1.1"
    with pytest.raises(RecordingError, match="choose one of 1.0, 1.1, 1.2, 1.3"):
        RecordingWriter(tmp_path / "c.jsonl", version="2.0")
    assert not (tmp_path / "c.jsonl").exists()

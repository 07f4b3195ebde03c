"""The memory-mapped line reader and the exchange-line scan (`proxy/store/offsets.py`) against a
recording written by the real writer: the same lines as splitting the bytes, from any offset, with
windows smaller than a line and chunks that cut the writer's prefix in two."""

from __future__ import annotations

from pathlib import Path

import pytest

import ctxscope.proxy.store.offsets as offsets
from ctxscope.proxy.store.offsets import complete_lines, exchange_offsets, line_waiting
from tests.inspector.tui.test_large_open import write_large


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, list[int]]:
    path = write_large(tmp_path_factory.mktemp("offsets") / "rec.jsonl", turns=12, kb=30)
    data = path.read_bytes()
    starts, position = [], 0
    for line in data.split(b"\n"):
        if line.startswith(b'{"kind":"exchange"'):
            starts.append(position)
        position += len(line) + 1
    return path, data, starts


@pytest.mark.parametrize("chunk", [5, 19, 4096, 4 << 20])
def test_exchange_lines_are_found_whatever_the_chunk(
    written: tuple[Path, bytes, list[int]], chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _, starts = written
    monkeypatch.setattr(offsets, "CHUNK", chunk)
    assert exchange_offsets(path) == starts and len(starts) == 13
    assert exchange_offsets(path, starts[6]) == starts[6:]


@pytest.mark.parametrize("window", [1 << 12, 1 << 16, offsets.WINDOW])
def test_lines_come_whole_from_any_offset_with_any_window(
    written: tuple[Path, bytes, list[int]], window: int
) -> None:
    path, data, starts = written
    lines = list(complete_lines(path, 0, len(data), window=window))
    assert [raw for _, raw in lines] == data.split(b"\n")[:-1]  # lines of 30 KB through 4 KB windows
    assert lines[-1][0] == len(data)
    tail = list(complete_lines(path, starts[5], len(data), window=window))
    assert tail == [(end, raw) for end, raw in lines if end > starts[5]]


def test_an_unfinished_last_line_is_waited_for_not_yielded(tmp_path: Path) -> None:
    path = tmp_path / "torn.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":')
    assert [raw for _, raw in complete_lines(path, 0, 13)] == [b'{"a":1}']
    assert line_waiting(path, 8, 13) and not line_waiting(path, 0, 13)
    path.write_bytes(b'{"a":1}\n  ')
    assert not line_waiting(path, 8, 10)

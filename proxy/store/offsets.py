"""A recording's lines read through a memory map: from any byte offset, only as far as asked.

A 1 GB recording shows its first turns after its first lines are decoded; nothing reads (or copies)
the rest of the file to get there. The operating system pages the mapped file in as lines are
taken and may drop those pages again, so reading costs no resident memory beyond the lines decoded.

`exchange_offsets` is the cheap pass over the whole file: it finds where each exchange line starts
without parsing JSON (a search for the writer's line prefix), so a reader knows how many requests are
still to come before it has decoded them.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .format import KIND_EXCHANGE

__all__ = ["complete_lines", "exchange_offsets", "mapped"]

EXCHANGE_PREFIX = b'{"kind":"' + KIND_EXCHANGE.encode() + b'"'
"""How the writer starts every exchange line (`dump_line` writes `kind` first, compactly)."""


@contextmanager
def mapped(path: Path, size: int) -> Iterator[mmap.mmap | bytes]:
    """The first `size` bytes of `path`, memory-mapped read-only (an empty file gives b"")."""
    if size <= 0:
        yield b""
        return
    with path.open("rb") as stream, mmap.mmap(stream.fileno(), size, access=mmap.ACCESS_READ) as view:
        yield view


def complete_lines(view: mmap.mmap | bytes, start: int, end: int) -> Iterator[tuple[int, bytes]]:
    """(offset after the line, the line without its newline) for each complete line in
    `view[start:end]`; a last line without its newline (a writer mid-line) is not yielded."""
    position = start
    while position < end:
        newline = view.find(b"\n", position, end)
        if newline < 0:
            return
        yield newline + 1, view[position:newline]
        position = newline + 1


def exchange_offsets(path: Path, start: int = 0) -> list[int]:
    """Where each exchange line at or after byte `start` begins (file order), found without decoding
    a line: each newline (a `memchr`), then the writer's prefix after it. Counts only lines written
    the way ctxscope's writer writes them: an estimate for a hand-edited file, which is all a
    progress count needs."""
    size = path.stat().st_size
    offsets: list[int] = []
    width = len(EXCHANGE_PREFIX)
    with mapped(path, size) as view:
        position = start
        while position < size:
            if view[position : position + width] == EXCHANGE_PREFIX:
                offsets.append(position)
            newline = view.find(b"\n", position)
            if newline < 0:
                break
            position = newline + 1
    return offsets

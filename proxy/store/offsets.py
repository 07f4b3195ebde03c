"""A recording's lines read through a memory map: from any byte offset, only as far as asked.

A 1 GB recording shows its first turns after its first lines are decoded; nothing reads (or copies)
the rest of the file to get there. The map is a window (`WINDOW` bytes, larger only for a longer
line) moved along the file, so the pages read are let go again as the reader moves on: mapped
pages count as the process's resident memory, and a whole 1 GB file mapped and read would count
1 GB.

`exchange_offsets` is the cheap pass over the whole file: it finds where each exchange line starts
without parsing JSON (each newline, then the writer's prefix after it), so a reader knows how many
requests are still to come before it has decoded them.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Generator
from pathlib import Path

from .format import KIND_EXCHANGE

__all__ = ["WINDOW", "complete_lines", "exchange_offsets", "line_waiting"]

EXCHANGE_PREFIX = b'{"kind":"' + KIND_EXCHANGE.encode() + b'"'
"""How the writer starts every exchange line (`dump_line` writes `kind` first, compactly)."""
WINDOW = 32 << 20
"""Bytes of the file mapped at a time."""
CHUNK = 4 << 20
"""Bytes read at a time by the scans that need no line whole (`exchange_offsets`, `line_waiting`)."""


def complete_lines(
    path: Path, start: int, end: int, window: int = WINDOW
) -> Generator[tuple[int, bytes], None, None]:
    """(offset after the line, the line without its newline) for each complete line of `path`
    between bytes `start` and `end`; a last line without its newline (a writer mid-line) is not
    yielded. Stop iterating at any point: the next call starts where the last line ended."""
    with path.open("rb") as stream:
        position, span = start, window
        while position < end:
            base = position - position % mmap.ALLOCATIONGRANULARITY
            length = min(end - base, position - base + span)
            local = position - base
            with mmap.mmap(stream.fileno(), length, offset=base, access=mmap.ACCESS_READ) as view:
                while (newline := view.find(b"\n", local)) >= 0:
                    yield base + newline + 1, view[local:newline]
                    local = newline + 1
            if base + length >= end:
                return
            if base + local > position:
                position, span = base + local, window
            else:  # a line longer than the window: map more of it
                span *= 2


def line_waiting(path: Path, start: int, end: int) -> bool:
    """True if bytes `start`..`end` of `path` are one unfinished line (no newline, not blank)."""
    blank = True
    with path.open("rb") as stream:
        stream.seek(start)
        left = end - start
        while left > 0:
            chunk = stream.read(min(CHUNK, left))
            if not chunk:
                break
            if b"\n" in chunk:
                return False
            blank = blank and not chunk.strip()
            left -= len(chunk)
    return not blank


def exchange_offsets(path: Path, start: int = 0) -> list[int]:
    """Where each exchange line at or after byte `start` begins (file order), found without decoding
    a line. Counts only lines written the way ctxscope's writer writes them: an estimate for a
    hand-edited file, which is all a progress count needs. Reads `CHUNK` bytes at a time."""
    width = len(EXCHANGE_PREFIX)
    with path.open("rb") as stream:
        descriptor = stream.fileno()
        offsets = [start] if os.pread(descriptor, width, start) == EXCHANGE_PREFIX else []
        stream.seek(start)
        position = start
        while chunk := stream.read(CHUNK):
            newline = chunk.find(b"\n")
            while newline >= 0:
                line = newline + 1
                head = (
                    chunk[line : line + width]
                    if line + width <= len(chunk)
                    else os.pread(descriptor, width, position + line)  # the prefix runs on past the chunk
                )
                if head == EXCHANGE_PREFIX:
                    offsets.append(position + line)
                newline = chunk.find(b"\n", line)
            position += len(chunk)
    return offsets

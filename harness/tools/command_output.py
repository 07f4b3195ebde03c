"""A command's output as it is read: bounded in memory, however much the command writes.

A command may write without end (`yes`, a runaway log, `cat /dev/zero`). Its reader keeps only the
first and the last `cap // 2` bytes of what arrived since the last call and counts the rest, so the
agent holds at most `cap` bytes (plus one read) per session whatever the command writes, and a call
returns in its yield time: nothing proportional to the output is copied, decoded or counted at the
end. What a call shows is cut to its own budget the same way, and what was cut is said where it was
cut, in Codex's words (`…N tokens truncated…`, tokens estimated as bytes / 4 like Codex).
"""

from __future__ import annotations

import codecs
from collections import deque

__all__ = ["BYTES_PER_TOKEN", "MAX_OUTPUT_TOKENS", "READ_CAP", "HeadTail", "approx_tokens"]

BYTES_PER_TOKEN = 4  # Codex's rough estimate; exact counts are not worth a tokenizer here
MAX_OUTPUT_TOKENS = 100_000
"""The largest output budget a call may ask for (a model asking for more gets this)."""
READ_CAP = MAX_OUTPUT_TOKENS * BYTES_PER_TOKEN
"""Bytes of a session's output held between two calls: what the largest budget can show."""


def approx_tokens(n_bytes: int) -> int:
    """Rough token count of `n_bytes` of output (rounded up, as Codex does)."""
    return (n_bytes + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


def _head_text(data: bytes) -> str:
    # A character cut at the end of the head is dropped, not shown as a replacement character.
    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)


def _tail_text(data: bytes) -> str:
    # ... and so is the rest of one cut at the start of the tail (at most 3 continuation bytes).
    skip = 0
    while skip < min(3, len(data)) and 0x80 <= data[skip] < 0xC0:
        skip += 1
    return data[skip:].decode("utf-8", errors="replace")


class HeadTail:
    """The first and last `cap // 2` bytes of a stream, and how many bytes it had in all.

    The tail is a queue of the chunks as they came: a chunk is dropped whole once the ones after it
    hold half the cap, so feeding costs no copy of what is kept (the tail holds at most one chunk
    more than half; `tail` trims it)."""

    def __init__(self, cap: int) -> None:
        self.half = max(cap // 2, 1)
        self.head = bytearray()
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self.total = 0

    def feed(self, data: bytes) -> None:
        """Add one chunk."""
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self._tail.append(data)
        self._tail_size += len(data)
        while self._tail_size - len(self._tail[0]) >= self.half:
            self._tail_size -= len(self._tail.popleft())

    @property
    def tail(self) -> bytes:
        """The last `cap // 2` bytes after the head."""
        data = b"".join(self._tail)
        return data[-self.half :] if len(data) > self.half else data

    @property
    def omitted(self) -> int:
        """Bytes between the head and the tail that were not kept."""
        return self.total - len(self.head) - min(self._tail_size, self.half)

    def kept(self) -> bytes:
        """The head and the tail together (what a check of the output's words reads)."""
        return bytes(self.head) + self.tail

    def narrowed(self, cap: int) -> HeadTail:
        """The same stream cut to `cap` bytes: the head of this head and the tail of this tail,
        with everything between them counted as omitted."""
        out = HeadTail(cap)
        head, tail = bytes(self.head), self.tail
        out.head += head[: out.half]
        rest = head[out.half :] + tail
        if rest:
            out._tail.append(rest[-out.half :])
            out._tail_size = len(out._tail[0])
        out.total = self.total
        return out

    def text(self) -> str:
        """The kept text, with Codex's marker where bytes were cut out."""
        omitted = self.omitted
        if omitted <= 0:
            return self.kept().decode("utf-8", errors="replace")
        return f"{_head_text(bytes(self.head))}…{approx_tokens(omitted)} tokens truncated…{_tail_text(self.tail)}"

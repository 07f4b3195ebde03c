"""Server-sent events both ways: an incremental parser that keeps each event's framing, and the encoder.

`SseParser.feed(chunk)` accepts arbitrary byte chunks — split anywhere, even inside a line, a CRLF or
a multi-byte UTF-8 character — and returns the `(event, data)` pairs completed by that chunk (the
WHATWG event-stream rules); `flush()` ends the stream and returns an event left unterminated.
`feed_frames` / `flush_frames` return every block instead, as `SseFrame`s: also the blocks that
dispatch nothing (a lone comment such as `: keep-alive`, an `event:` line without `data:`), each
with its `wire` — the block's text as it arrived with the `data` values left out. `encode_frame`
puts the data back into the wire, so a recorded stream replays byte for byte: comment lines,
`id:`/`retry:` fields, `data:x` without the space, CRLF and bare-CR line endings, a last event
cut before its blank line. Frames whose wire is the plain `event: NAME\\ndata: DATA\\n\\n` need not
keep it (`SseFrame.plain`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

__all__ = [
    "SseFrame",
    "SseParser",
    "encode_event",
    "encode_frame",
    "encode_sse",
    "encode_stream",
    "plain_wire",
    "wire_has_data",
    "wire_terminated",
]

_WIRE_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


_ENDINGS = {b"\n": "\n", b"\r\n": "\r\n", b"\r": "\r"}


class SseFrame(NamedTuple):  # a tuple: built for every event on the proxy's relay path
    """One block of an event stream, from its first line to the blank line that ends it."""

    event: str | None
    """The last `event:` value of the block, if any."""
    data: str
    """The `data:` values joined with `\\n` (empty when the block had no data line)."""
    wire: str
    """The block as received with every data value left out (`data: ` stays, its value does not)."""
    has_data: bool
    """Whether the block dispatches an event (it has at least one `data` line)."""
    terminated: bool
    """False for a last block the stream ended inside (no blank line after it)."""

    @property
    def plain(self) -> bool:
        """True if `wire` is what `encode_event(event, data)` writes anyway (so it need not be kept)."""
        return self.has_data and self.wire == plain_wire(self.event, self.data)


class SseParser:
    """Turns an SSE byte stream into frames, or into `(event_name_or_None, data)` pairs."""

    def __init__(self) -> None:
        self._buf = b""
        self._reset()

    def _reset(self) -> None:
        self._event: str | None = None
        self._data: list[str] = []
        self._wire: list[str] = []

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        """Consume `chunk`; return the events it completed, in order."""
        return [(f.event, f.data) for f in self.feed_frames(chunk) if f.has_data]

    def flush(self) -> list[tuple[str | None, str]]:
        """End of stream: treat a partial last line as complete and dispatch a pending event."""
        return [(f.event, f.data) for f in self.flush_frames() if f.has_data]

    def feed_frames(self, chunk: bytes) -> list[SseFrame]:
        """Consume `chunk`; return every block it completed, dispatching or not."""
        buf = self._buf + chunk if self._buf else chunk
        out: list[SseFrame] = []
        pos = 0  # scan with an index so a big chunk of many lines is not re-copied per line
        while True:
            lf, cr = buf.find(b"\n", pos), buf.find(b"\r", pos)
            if cr == -1 or (lf != -1 and lf < cr):
                if lf == -1:
                    break
                end, nxt = lf, lf + 1
            elif cr + 1 == len(buf):
                break  # a trailing \r: its \n may come with the next chunk
            else:
                end, nxt = cr, cr + (2 if buf[cr + 1] == 0x0A else 1)
            self._line(buf[pos:end].decode("utf-8", "replace"), _ENDINGS[buf[end:nxt]], out)
            pos = nxt
        self._buf = buf[pos:]
        return out

    def flush_frames(self) -> list[SseFrame]:
        """End of stream: the block left open (a partial last line included), if there is one."""
        out: list[SseFrame] = []
        if self._buf:
            rest, self._buf = self._buf, b""
            ending = "\r" if rest.endswith(b"\r") else ""  # a CR held back in case an LF followed
            self._line(rest[: len(rest) - len(ending)].decode("utf-8", "replace"), ending, out)
        if self._wire:
            out.append(
                SseFrame(self._event, "\n".join(self._data), "".join(self._wire), bool(self._data), False)
            )
            self._reset()
        return out

    def _line(self, line: str, ending: str, out: list[SseFrame]) -> None:
        if line == "" and ending:
            self._wire.append(ending)
            out.append(
                SseFrame(self._event, "\n".join(self._data), "".join(self._wire), bool(self._data), True)
            )
            self._reset()
            return
        if line.startswith(":"):  # comment / keep-alive: kept in the wire only
            self._wire.append(line + ending)
            return
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._wire.append(line[: len(line) - len(value)] + ending)
            return
        if name == "event":
            self._event = value
        self._wire.append(line + ending)  # `id`, `retry` and unknown fields carry nothing we fold


def plain_wire(event: str | None, data: str) -> str:
    """The wire `encode_event` writes: `event: NAME` (if named), `data: ` per line, a blank line."""
    head = f"event: {event}\n" if event else ""
    return head + "data: \n" * (data.count("\n") + 1) + "\n"


def wire_has_data(wire: str) -> bool:
    """Whether a stored wire has a data line (a block without one dispatches no event)."""
    return any(_field(m.group().rstrip("\r\n")) == "data" for m in _WIRE_LINE.finditer(wire))


def wire_terminated(wire: str) -> bool:
    """Whether a stored wire ends with the blank line that completes its block."""
    lines = [m.group() for m in _WIRE_LINE.finditer(wire) if m.group()]
    return bool(lines) and lines[-1] in ("\n", "\r", "\r\n")


def _field(line: str) -> str:
    return line.partition(":")[0]


def encode_frame(event: str | None, data: str, wire: str | None = None) -> bytes:
    """One block in wire form: `wire` with the data values put back, or the plain form without it."""
    if wire is None:
        lines = [f"event: {event}"] if event else []
        lines += [f"data: {line}" for line in data.split("\n")]
        return ("\n".join(lines) + "\n\n").encode()
    values = iter(data.split("\n"))
    out: list[str] = []
    for match in _WIRE_LINE.finditer(wire):
        line = match.group()
        if not line:
            continue
        body = line.rstrip("\r\n")
        out.append(body + next(values, "") + line[len(body) :] if _field(body) == "data" else line)
    return "".join(out).encode()


def encode_event(event: str | None, data: str) -> bytes:
    """One event in the plain wire form; multi-line data becomes several `data:` lines."""
    return encode_frame(event, data)


def encode_sse(event: dict[str, Any], compact: bool = False) -> bytes:
    """A Responses event object as `event: <type>` + `data: <json>` (compact JSON as the API sends)."""
    separators = (",", ":") if compact else None
    return encode_frame(str(event.get("type", "message")), json.dumps(event, separators=separators))


def encode_stream(events: Iterable[dict[str, Any]], compact: bool = False) -> bytes:
    """A whole stream of event objects as bytes."""
    return b"".join(encode_sse(e, compact) for e in events)

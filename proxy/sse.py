"""Incremental server-sent-events parser (the WHATWG event-stream rules, bytes in, events out).

`SseParser.feed(chunk)` accepts arbitrary byte chunks — split anywhere, even inside a line, a CRLF or
a multi-byte UTF-8 character — and returns the `(event, data)` pairs completed by that chunk.
`flush()` ends the stream and returns an event left unterminated (a server that closed without the
final blank line still gets its last event recorded).
"""

from __future__ import annotations

__all__ = ["SseParser"]


class SseParser:
    """Turns an SSE byte stream into `(event_name_or_None, data)` pairs."""

    def __init__(self) -> None:
        self._buf = b""
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        """Consume `chunk`; return the events it completed, in order."""
        buf = self._buf + chunk if self._buf else chunk
        out: list[tuple[str | None, str]] = []
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
            self._line(buf[pos:end].decode("utf-8", "replace"), out)
            pos = nxt
        self._buf = buf[pos:]
        return out

    def flush(self) -> list[tuple[str | None, str]]:
        """End of stream: treat a partial last line as complete and dispatch a pending event."""
        out: list[tuple[str | None, str]] = []
        if self._buf:
            rest, self._buf = self._buf.rstrip(b"\r"), b""
            self._line(rest.decode("utf-8", "replace"), out)
        self._line("", out)
        return out

    def _line(self, line: str, out: list[tuple[str | None, str]]) -> None:
        if line == "":
            if self._data:
                out.append((self._event, "\n".join(self._data)))
            self._event, self._data = None, []
            return
        if line.startswith(":"):
            return  # comment / keep-alive
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        # `id` and `retry` carry nothing the recording needs.

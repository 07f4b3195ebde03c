"""The pacer: a tiny loopback HTTP/1.1 server that streams a replayed SSE answer with its timing.

mitmproxy sends a response an addon sets in the `request` hook in one piece, and other addons (the
Recorder) see no stream; only a response coming from a server can stream. So every SSE answer —
paced (`--pace recorded`) or not, cut mid-stream (a recorded transport error) or whole — is parked
here under a ticket and the flow is pointed at this server; mitmproxy then streams what the pacer
writes, chunk by chunk, like any upstream's.

It runs on the proxy's own event loop (started from an async addon hook), reads the forwarded request
(Content-Length or chunked body, so closing never resets unread data), looks up the ticket header and
writes the chunks at their offsets. Nothing waits without bound: a missing ticket is a 500 at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import time
from http import HTTPStatus

from proxy.replay.cassette import Answer

__all__ = ["Pacer", "TICKET_HEADER"]

TICKET_HEADER = "x-ctxscope-replay-ticket"
_READ_TIMEOUT_S = 30.0


class Pacer:
    """Serves parked answers on 127.0.0.1; `park(answer, paced)` returns the ticket to send."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._tickets: dict[str, tuple[Answer, bool]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.port: int | None = None

    async def ensure_started(self) -> int:
        """Start listening (once) on the running loop; returns the port."""
        if self._server is None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
            self.port = int(self._server.sockets[0].getsockname()[1])
        assert self.port is not None
        return self.port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def park(self, answer: Answer, paced: bool) -> str:
        """Keep `answer` until the proxy fetches it; `paced` keeps the recorded event offsets."""
        with self._lock:
            ticket = str(next(self._ids))
            self._tickets[ticket] = (answer, paced)
        return ticket

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            ticket = await asyncio.wait_for(_read_request(reader), _READ_TIMEOUT_S)
            with self._lock:
                parked = self._tickets.pop(ticket, None) if ticket else None
            if parked is None:
                await _write_simple(writer, 500, b"ctxscope pacer: unknown replay ticket\n")
                return
            await _write_stream(writer, *parked)
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass  # the proxy (or its client) went away: nothing left to deliver
        finally:
            with contextlib.suppress(Exception):
                writer.close()


async def _read_request(reader: asyncio.StreamReader) -> str | None:
    """Read one request fully and return its ticket header value."""
    head = await reader.readuntil(b"\r\n\r\n")
    ticket: str | None = None
    length = 0
    chunked = False
    for line in head.decode("latin-1").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        if name == TICKET_HEADER:
            ticket = value
        elif name == "content-length" and value.isdigit():
            length = int(value)
        elif name == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
    if chunked:
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip() or b"0", 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    elif length:
        await reader.readexactly(length)
    return ticket


async def _write_simple(writer: asyncio.StreamWriter, status: int, body: bytes) -> None:
    writer.write(
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\ncontent-type: text/plain\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()


async def _write_stream(writer: asyncio.StreamWriter, answer: Answer, paced: bool) -> None:
    try:
        phrase = HTTPStatus(answer.status).phrase
    except ValueError:
        phrase = "Status"
    head = [f"HTTP/1.1 {answer.status} {phrase}"]
    head += [f"{k}: {v}" for k, v in answer.headers.items()]
    head += ["transfer-encoding: chunked", "connection: close", "", ""]
    writer.write("\r\n".join(head).encode())
    await writer.drain()
    start = time.monotonic()
    for offset_ms, chunk in answer.events or [(0.0, answer.body)]:
        if paced:
            delay = start + offset_ms / 1000.0 - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        if chunk:
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            await writer.drain()
    if answer.cut:
        writer.transport.abort()  # end without the last chunk: the client sees the stream break
        return
    writer.write(b"0\r\n\r\n")
    await writer.drain()

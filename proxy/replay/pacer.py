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

from ctxscope.proxy.replay.cassette import Answer
from ctxscope.proxy.replay.ws import WsSession, serve_websocket

__all__ = ["Pacer", "Parked", "TICKET_HEADER"]

TICKET_HEADER = "x-ctxscope-replay-ticket"
Parked = tuple[Answer, bool] | WsSession
"""An SSE answer and whether to pace it, or a WebSocket session."""
_READ_TIMEOUT_S = 30.0


class Pacer:
    """Serves parked answers on 127.0.0.1; `park(...)` returns the ticket to send."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._starting: asyncio.Future[int] | None = None
        self._tickets: dict[str, Parked] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.port: int | None = None

    async def ensure_started(self) -> int:
        """Start listening (once) on the running loop; returns the port.

        Concurrent first requests share one start: checking `_server` and then awaiting the start
        let each of them open a listening socket, and all but the last leaked.
        """
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        return await asyncio.shield(self._starting)

    async def _start(self) -> int:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        self._starting = None

    def park(self, parked: Parked) -> str:
        """Keep `(answer, paced)` or a `WsSession` until the proxy comes for it; returns its ticket."""
        with self._lock:
            ticket = str(next(self._ids))
            self._tickets[ticket] = parked
        return ticket

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            path, headers = await asyncio.wait_for(_read_request(reader), _READ_TIMEOUT_S)
            ticket = headers.get(TICKET_HEADER)
            with self._lock:
                parked = self._tickets.pop(ticket, None) if ticket else None
            if parked is None:
                await _write_simple(writer, 500, b"ctxscope pacer: unknown replay ticket\n")
            elif isinstance(parked, WsSession):
                key = headers.get("sec-websocket-key")
                if key is None:
                    await _write_simple(writer, 400, b"ctxscope pacer: not a WebSocket handshake\n")
                    return
                await serve_websocket(reader, writer, path, key, parked)
            else:
                await _write_stream(writer, *parked)
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass  # the proxy (or its client) went away: nothing left to deliver
        finally:
            with contextlib.suppress(Exception):
                writer.close()


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, dict[str, str]]:
    """Read one request fully; return its path and headers (names lower-cased)."""
    head = await reader.readuntil(b"\r\n\r\n")
    request_line, *lines = head.decode("latin-1").split("\r\n")
    parts = request_line.split(" ")
    path = parts[1] if len(parts) > 1 else "/"
    headers: dict[str, str] = {}
    length = 0
    chunked = False
    for line in lines:
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        if name:
            headers[name] = value
        if name == "content-length" and value.isdigit():
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
    return path, headers


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
    for offset_ms, chunk in answer.events if answer.is_stream else [(0.0, answer.body)]:
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

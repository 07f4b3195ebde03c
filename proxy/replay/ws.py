"""Replaying WebSocket turns: a minimal RFC 6455 server the pacer runs for a WebSocket upgrade.

The Codex CLI sends `response.create` frames over a WebSocket to the OpenAI provider and reads the
answer's events back as text frames. When a cassette holds such turns, the `Replayer` points the
upgrade at the pacer, which answers the handshake and then, for every client `response.create` frame,
asks the replayer for the answer (`WsSession.choose`: the same matching as HTTP) and sends each event's
data as one text frame, paced like SSE. An error answer (mismatch, cassette exhausted) becomes an
`{"type": "error", "status": 400, "error": {...}}` frame, which clients treat as final (see
`FINAL_ERROR_STATUS`). Frames from the client are unmasked and
reassembled from fragments; ping gets pong; close is echoed. No extensions are negotiated (mitmproxy
relays the handshake, so the client sees that too).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ctxscope.proxy.replay.cassette import Answer

__all__ = ["WsSession", "serve_websocket"]

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_TEXT, _BINARY, _CLOSE, _PING, _PONG = 0x1, 0x2, 0x8, 0x9, 0xA
MAX_MESSAGE = 64 * 1024 * 1024  # a bound on what one client message may grow to
FINAL_ERROR_STATUS = 400
"""The status of every error frame the replayer sends. Codex 0.169 reads an error frame's status as an
HTTP status: 400 is an invalid request and fails the turn at once, printing the frame (the mismatch's
differences); a 409 or 410 was retried on the socket 7 times and then over HTTP 6 times (about 13 s)
before failing with only `unexpected status 409 Conflict`. The replayer's own status stays in the error
object as `replay_status`."""


@dataclass
class WsSession:
    """What the pacer needs from the replayer to serve one WebSocket connection."""

    choose: Callable[[str, Any], Answer]
    """(upgrade path, parsed `response.create` frame) → the answer for that turn."""
    done: Callable[[], None]
    """Called once a turn's frames are all sent (or the connection broke)."""
    paced: bool


async def serve_websocket(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, key: str, session: WsSession
) -> None:
    """Complete the handshake, then answer `response.create` frames until the client closes."""
    accept = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
    writer.write(
        (
            "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
            f"sec-websocket-accept: {accept}\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    while True:
        opcode, payload = await _read_message(reader, writer)
        if opcode == _CLOSE:
            await _send(writer, _CLOSE, payload[:2])
            return
        if opcode != _TEXT:
            continue
        try:
            frame = json.loads(payload)
        except ValueError:
            continue
        if not isinstance(frame, dict) or frame.get("type") != "response.create":
            continue
        answer = session.choose(path, frame)
        try:
            await _send_answer(writer, answer, session.paced)
        finally:
            session.done()
        if answer.cut:
            writer.transport.abort()  # the recorded connection broke here
            return


async def _send_answer(writer: asyncio.StreamWriter, answer: Answer, paced: bool) -> None:
    if not answer.is_stream:
        error: Any = None
        try:
            error = json.loads(answer.body).get("error")
        except (ValueError, AttributeError):
            error = {"message": answer.body.decode("utf-8", "replace")}
        if isinstance(error, dict):
            error = {**error, "replay_status": answer.status}  # what an HTTP client would have got
        frame = {"type": "error", "status": FINAL_ERROR_STATUS, "error": error}
        await _send(writer, _TEXT, json.dumps(frame).encode())
        return
    start = time.monotonic()
    for event in answer.sse or []:
        if not event.dispatched:
            continue  # a comment, a data-less block or a cut-off last event (recorded over HTTP) is no frame
        if paced:
            delay = start + event.t_ms / 1000.0 - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        await _send(writer, _TEXT, event.data.encode())


async def _send(writer: asyncio.StreamWriter, opcode: int, payload: bytes) -> None:
    """One unmasked, unfragmented server frame."""
    size = len(payload)
    if size < 126:
        head = bytes([0x80 | opcode, size])
    elif size < 1 << 16:
        head = bytes([0x80 | opcode, 126]) + size.to_bytes(2, "big")
    else:
        head = bytes([0x80 | opcode, 127]) + size.to_bytes(8, "big")
    writer.write(head + payload)
    await writer.drain()


async def _read_message(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> tuple[int, bytes]:
    """The next whole data message (fragments joined) or control frame other than ping/pong."""
    message_opcode: int | None = None
    parts: list[bytes] = []
    size = 0
    while True:
        fin, opcode, payload = await _read_frame(reader)
        if opcode == _PING:
            await _send(writer, _PONG, payload)
            continue
        if opcode == _PONG:
            continue
        if opcode == _CLOSE:
            return _CLOSE, payload
        if opcode in (_TEXT, _BINARY):
            message_opcode, parts, size = opcode, [], 0
        size += len(payload)
        if size > MAX_MESSAGE:
            raise ConnectionError("WebSocket message too large")
        parts.append(payload)
        if fin and message_opcode is not None:
            return message_opcode, b"".join(parts)


async def _read_frame(reader: asyncio.StreamReader) -> tuple[bool, int, bytes]:
    first, second = await reader.readexactly(2)
    size = second & 0x7F
    if size == 126:
        size = int.from_bytes(await reader.readexactly(2), "big")
    elif size == 127:
        size = int.from_bytes(await reader.readexactly(8), "big")
    if size > MAX_MESSAGE:
        raise ConnectionError("WebSocket frame too large")
    mask = await reader.readexactly(4) if second & 0x80 else b""
    payload = await reader.readexactly(size)
    if mask and size:
        # XOR as one big integer: a per-byte loop is far too slow for 600 KB request frames.
        key = (mask * (size // 4 + 1))[:size]
        payload = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(size, "big")
    return bool(first & 0x80), first & 0x0F, payload

"""A local Responses-like upstream for tests: `FakeUpstream`.

A threaded HTTP/1.1 server on 127.0.0.1 (port 0) that answers with programmable replies: SSE streams
in the Codex wire shape (`event: <type>\\ndata: <json>\\n\\n`, chunked transfer encoding, keep-alive),
JSON bodies, error statuses, streams cut after N events, stalls, and a *gated* stream whose next event
is only sent once the test calls `upstream.gate.release()` — the deterministic check that a proxy in
between never buffers.

Which reply a request gets: the next queued one (`upstream.reply(...)`), else `handler(request)` if
given, else a default (`POST .../responses` → a short text stream, `GET .../models` → a model list,
anything else → 404). Everything received is kept in `upstream.requests`.

SSE event builders live in `ctxscope.proxy.responses` (re-exported by `ctxscope.proxy.testing`).
"""

from __future__ import annotations

import gzip
import json
import socket
import ssl
import threading
import zlib
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ctxscope.proxy.responses import encode_sse, response_stream, text_message

# Upper bound for any wait inside the server, so a broken test never leaves a thread hanging forever.
MAX_WAIT_S = 30.0


@dataclass
class RecordedRequest:
    """What the upstream received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON (gzip-decoded if the client sent it so)."""
        data = self.body
        if self.headers.get("content-encoding", "").lower() == "gzip":
            data = gzip.decompress(data)
        return json.loads(data)


@dataclass
class SseReply:
    """A `text/event-stream` reply.

    `events` are dicts (sent as `event: <type>` + `data: <json>`) or raw `bytes` chunks sent as-is.
    `cut_after=N` sends N events then drops the connection without ending the chunked body.
    `gated=True` sends the first event at once and each next one only after `gate.release()`.
    `stall_after=N` sends N events then stops sending (until the server stops) without closing.
    `gzip=True` content-encodes the stream (flushed per event, so it still streams).
    """

    events: Sequence[dict[str, Any] | bytes]
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None
    gated: bool = False
    stall_after: int | None = None
    gzip: bool = False


@dataclass
class JsonReply:
    """A JSON reply with `Content-Length` (e.g. /models, /responses/compact, a 429 error body)."""

    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class RawReply:
    """Arbitrary bytes with a given content type."""

    body: bytes
    status: int = 200
    content_type: str = "text/plain"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class StallReply:
    """Read the request, then never answer (until the server stops): the client must time out."""


@dataclass
class CloseReply:
    """Read the request, then close the connection without any response."""


Reply = SseReply | JsonReply | RawReply | StallReply | CloseReply
Handler = Callable[[RecordedRequest], Reply]


class Gate:
    """Lets the test decide when the upstream may send the next SSE event of a gated reply."""

    def __init__(self) -> None:
        self._sem = threading.Semaphore(0)
        self.sent = 0
        """How many gated events have been written to the socket so far."""

    def release(self, n: int = 1) -> None:
        """Allow `n` more events to be sent."""
        self._sem.release(n)

    def wait(self, timeout: float = MAX_WAIT_S) -> bool:
        """Block until released; False on timeout (the stream is then aborted)."""
        return self._sem.acquire(timeout=timeout)


def default_reply(request: RecordedRequest) -> Reply:
    """What the upstream answers when nothing was queued and no handler was given."""
    path = request.path.split("?", 1)[0]
    if request.method == "POST" and path.endswith("/responses"):
        return SseReply(response_stream(text_message("ok")))
    if request.method == "GET" and path.endswith("/models"):
        return JsonReply({"object": "list", "data": [{"id": "gpt-test", "object": "model"}]})
    return JsonReply({"error": {"message": f"no route for {request.method} {path}"}}, status=404)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default listen backlog is 5: twenty clients connecting at once through a proxy
    # overflow it, dropped SYNs are retried after 1, 3, 7, 15 s, and on a loaded machine a test
    # waiting for all of them in flight could time out.
    request_queue_size = 128
    upstream: FakeUpstream

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client (or proxy) hanging up mid-reply is expected in tests: do not print a traceback."""
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, OSError | ValueError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = MAX_WAIT_S  # idle keep-alive connections end eventually

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""

    def setup(self) -> None:
        super().setup()
        self.server.upstream._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.upstream._track(self.connection, add=False)

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        body = self._read_body()
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        up = self.server.upstream
        up._record(request)
        self._send(up._next_reply(request))

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    def _send(self, reply: Reply) -> None:
        if isinstance(reply, StallReply):
            self.server.upstream._stopping.wait(MAX_WAIT_S)
            self.close_connection = True
            return
        if isinstance(reply, CloseReply):
            self.close_connection = True
            return
        if isinstance(reply, JsonReply):
            self._send_whole(reply.status, json.dumps(reply.body).encode(), "application/json", reply.headers)
            return
        if isinstance(reply, RawReply):
            self._send_whole(reply.status, reply.body, reply.content_type, reply.headers)
            return
        self._send_sse(reply)

    def _send_whole(self, status: int, body: bytes, ctype: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    def _send_sse(self, reply: SseReply) -> None:
        up = self.server.upstream
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        if reply.gzip:
            self.send_header("Content-Encoding", "gzip")
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.flush()
        compressor = zlib.compressobj(wbits=31) if reply.gzip else None
        for index, event in enumerate(reply.events):
            if reply.cut_after is not None and index >= reply.cut_after:
                self._abort()
                return
            if reply.stall_after is not None and index >= reply.stall_after:
                up._stopping.wait(MAX_WAIT_S)
                self._abort()
                return
            if reply.gated and index > 0 and not up.gate.wait():
                self._abort()
                return
            data = event if isinstance(event, bytes) else encode_sse(event)
            if compressor is not None:
                data = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
            self._chunk(data)
            if reply.gated:
                up.gate.sent += 1
        if reply.cut_after is not None and reply.cut_after >= len(reply.events):
            self._abort()
            return
        if compressor is not None:
            self._chunk(compressor.flush())
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _abort(self) -> None:
        """Drop the connection mid-body: the peer sees an incomplete chunked stream."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class FakeUpstream:
    """A Responses-like HTTP server on loopback; use as a context manager (`with FakeUpstream() as up`)."""

    def __init__(
        self, handler: Handler | None = None, host: str = "127.0.0.1", tls: tuple[Path, Path] | None = None
    ) -> None:
        self.handler = handler
        self.requests: list[RecordedRequest] = []
        self.gate = Gate()
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._conns: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._server = _Server((host, 0), _Handler)
        self._server.upstream = self
        self._thread: threading.Thread | None = None
        self.scheme = "http"
        if tls is not None:  # (certfile, keyfile): serve HTTPS with that (self-signed) certificate
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(tls[0]), str(tls[1]))
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
            self.scheme = "https"

    @property
    def host(self) -> str:
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL without a trailing slash, e.g. `http://127.0.0.1:PORT`."""
        return f"{self.scheme}://{self.host}:{self.port}"

    def reply(self, *replies: Reply) -> FakeUpstream:
        """Queue replies; each request takes the next one (before the handler/default)."""
        with self._lock:
            self._queue.extend(replies)
        return self

    def start(self) -> FakeUpstream:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, release stalled/gated handlers and close every open connection."""
        self._stopping.set()
        self.gate.release(10_000)
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=MAX_WAIT_S)

    def __enter__(self) -> FakeUpstream:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.handler is not None:
            return self.handler(request)
        return default_reply(request)

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._conns.add(conn)
            else:
                self._conns.discard(conn)

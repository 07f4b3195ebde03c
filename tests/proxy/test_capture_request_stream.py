"""Request bodies are relayed chunk by chunk: the upstream sees the first bytes before the client has sent
the last, and the recording still holds the whole body, redacted. Not timed: the proof is the order of
events (the client waits for the upstream to report the first chunk before it sends the rest).
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import zstandard

from ctxscope.proxy.recorder import Recorder
from ctxscope.proxy.runner import ProxyServer
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.store.writer import RecordingWriter

TIMEOUT = 20.0
SECRET = "sk-proj-PLANTEDstream0001abcdefghijklmnop"


class SlowBodyUpstream:
    """An HTTP/1.1 upstream that says when the first request-body byte arrived (`first_body`), then reads
    the rest (chunked or Content-Length) and answers `{}`. One connection at a time, bounded waits."""

    def __init__(self) -> None:
        self.first_body = threading.Event()
        self.bodies: list[bytes] = []
        self.finished = threading.Event()
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(TIMEOUT)
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def __enter__(self) -> SlowBodyUpstream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._sock.close()
        self._thread.join(TIMEOUT)

    def _serve(self) -> None:
        try:
            conn, _ = self._sock.accept()
        except OSError:  # closed by __exit__ before anything connected
            return
        with conn:
            conn.settimeout(TIMEOUT)
            try:
                self._handle(conn)
            except OSError:
                pass  # the proxy hung up (the client aborted): nothing more to read
            finally:
                self.finished.set()

    def _handle(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            data += _recv(conn)
        head, _, rest = data.partition(b"\r\n\r\n")
        headers = {
            k.strip().lower(): v.strip()
            for k, _, v in (line.partition(":") for line in head.decode("latin-1").split("\r\n")[1:])
        }
        if rest:
            self.first_body.set()
        if "content-length" in headers:
            length = int(headers["content-length"])
            while len(rest) < length:
                rest += _recv(conn)
                self.first_body.set()
            body = rest[:length]
        else:  # chunked
            while not rest.endswith(b"0\r\n\r\n"):
                rest += _recv(conn)
                self.first_body.set()
            body = _dechunk(rest)
        self.bodies.append(body)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")


def _recv(conn: socket.socket) -> bytes:
    chunk = conn.recv(65536)
    if not chunk:
        raise ConnectionError("peer closed")
    return chunk


def _dechunk(data: bytes) -> bytes:
    body, pos = b"", 0
    while True:
        line_end = data.index(b"\r\n", pos)
        size = int(data[pos:line_end].split(b";")[0], 16)
        if size == 0:
            return body
        body += data[line_end + 2 : line_end + 2 + size]
        pos = line_end + 2 + size + 2


@pytest.fixture
def slow_upstream() -> Iterator[SlowBodyUpstream]:
    with SlowBodyUpstream() as upstream:
        yield upstream


def _proxy(upstream: str, path: Path, *, stream_requests: bool = True) -> tuple[ProxyServer, Recorder]:
    writer = RecordingWriter(path, meta={"mode": "reverse"})
    recorder = Recorder(writer, stream_requests=stream_requests)
    return ProxyServer([recorder], mode="reverse", upstream=upstream), recorder


@pytest.mark.parametrize("stream_requests", [True, False], ids=["streamed", "buffered"])
def test_the_upstream_gets_the_first_chunk_before_the_client_sends_the_rest(
    slow_upstream: SlowBodyUpstream, tmp_path: Path, stream_requests: bool
) -> None:
    body = {
        "model": "gpt-5",
        "input": [{"type": "message", "role": "user", "content": f"my key is {SECRET} " + "x" * 300_000}],
    }
    payload = json.dumps(body).encode()
    first, rest = payload[:4096], payload[4096:]
    seen_before_the_rest: list[bool] = []

    def slowly() -> Iterator[bytes]:
        yield first
        # Streamed, the upstream reports the first chunk while the client still holds the rest; buffered
        # (the replayer's way), nothing reaches it until the client is done, so a short wait suffices.
        seen_before_the_rest.append(slow_upstream.first_body.wait(TIMEOUT if stream_requests else 1.0))
        yield rest

    path = tmp_path / "rec.jsonl"
    proxy, recorder = _proxy(slow_upstream.url, path, stream_requests=stream_requests)
    with proxy:
        response = httpx.post(f"{proxy.url}/v1/responses", content=slowly(), timeout=TIMEOUT)
        assert response.status_code == 200
        assert recorder.wait_for(1, TIMEOUT)
    assert recorder.writer is not None
    recorder.writer.close()

    assert seen_before_the_rest == [stream_requests]
    assert slow_upstream.bodies == [payload]  # relayed unchanged either way
    (exchange,) = read_recording(path).exchanges
    assert exchange.error is None and "request_incomplete" not in exchange.meta
    assert exchange.request_size == len(payload)
    content = exchange.request_body["input"][0]["content"]
    assert content.startswith("my key is <redacted:") and content.endswith("x" * 300_000)
    assert SECRET not in path.read_text()


def test_a_client_that_stops_mid_body_is_recorded_with_what_it_sent(
    slow_upstream: SlowBodyUpstream, tmp_path: Path
) -> None:
    sent = b'{"model": "gpt-5", "input": "' + SECRET.encode() + b" and then nothing"
    path = tmp_path / "rec.jsonl"
    proxy, recorder = _proxy(slow_upstream.url, path)
    with proxy:
        with socket.create_connection((proxy.host, proxy.port), timeout=TIMEOUT) as client:
            client.sendall(
                b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100000\r\n\r\n" + sent
            )
            assert slow_upstream.first_body.wait(TIMEOUT)  # relayed before the client gave up
        assert recorder.wait_for(1, TIMEOUT)
        assert slow_upstream.finished.wait(TIMEOUT)
    assert recorder.writer is not None
    recorder.writer.close()

    (exchange,) = read_recording(path).exchanges
    assert exchange.error is not None and exchange.error.kind == "client_abort"
    assert exchange.meta["request_incomplete"] is True
    assert exchange.request_size == len(sent)
    assert exchange.request_body is None and exchange.request_text is not None
    assert exchange.request_text.startswith('{"model": "gpt-5", "input": "<redacted:')
    assert exchange.request_text.endswith(" and then nothing")
    assert SECRET not in path.read_text()


@pytest.mark.parametrize("encoding", ["gzip", "zstd"])
def test_a_compressed_body_streamed_in_pieces_is_recorded_decoded(
    slow_upstream: SlowBodyUpstream, tmp_path: Path, encoding: str
) -> None:
    body = {"model": "gpt-5", "input": f"packed {SECRET} " + "z" * 100_000}
    raw = json.dumps(body).encode()
    packed = gzip.compress(raw) if encoding == "gzip" else zstandard.ZstdCompressor().compress(raw)
    pieces = [packed[i : i + 64] for i in range(0, len(packed), 64)]

    def slowly() -> Iterator[bytes]:
        yield pieces[0]
        assert slow_upstream.first_body.wait(TIMEOUT)  # streamed: the first piece is already upstream
        yield from pieces[1:]

    path = tmp_path / "rec.jsonl"
    proxy, recorder = _proxy(slow_upstream.url, path)
    with proxy:
        headers = {"content-type": "application/json", "content-encoding": encoding}
        response = httpx.post(f"{proxy.url}/v1/responses", content=slowly(), headers=headers, timeout=TIMEOUT)
        assert response.status_code == 200
        assert recorder.wait_for(1, TIMEOUT)
    assert recorder.writer is not None
    recorder.writer.close()

    assert slow_upstream.bodies == [packed]  # relayed as sent, still encoded
    (exchange,) = read_recording(path).exchanges
    assert exchange.meta["request_content_encoding"] == encoding
    assert exchange.request_size == len(raw)
    assert exchange.request_body["input"].startswith("packed <redacted:")
    assert exchange.request_body["input"].endswith("z" * 100_000)
    assert SECRET not in path.read_text()

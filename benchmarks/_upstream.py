"""A fast asyncio upstream for benchmarks: SSE with a fixed spacing, tiny JSON for throughput.

The test suite's `FakeUpstream` favours control (gates, cuts, stalls); here the upstream must not be
the bottleneck, so it is a minimal HTTP/1.1 keep-alive server on its own event loop thread.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from ctxscope.proxy.responses import encode_sse

SPACING_S = 0.02
EVENTS = 5


def _stream_events(n: int, echo: dict[str, Any], compact: bool = True) -> list[bytes]:
    """Like the real API, response.created/completed echo the request's instructions and tools.

    `compact=False` writes spaced JSON with ASCII escapes (Python's `json.dumps` defaults), as some
    upstreams do."""
    events: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": {"id": "resp_b", "status": "in_progress", **echo, "output": []},
        }
    ]
    events += [
        {"type": "response.output_text.delta", "item_id": "msg_b", "output_index": 0, "delta": f"tok{i} "}
        for i in range(n - 2)
    ]
    events.append(
        {
            "type": "response.completed",
            "response": {
                "id": "resp_b",
                "status": "completed",
                **echo,
                "output": [
                    {
                        "type": "message",
                        "role": "assistant",
                        "id": "msg_b",
                        "content": [{"type": "output_text", "text": "done"}],
                    }
                ],
                "usage": {"input_tokens": 10, "output_tokens": 3, "total_tokens": 13},
            },
        }
    )
    return [encode_sse(e, compact=compact) for e in events]  # compact JSON by default, as the API sends it


def _echo(body: bytes) -> dict[str, Any]:
    request = json.loads(body) if body else {}
    return {k: request[k] for k in ("instructions", "tools") if k in request}


class BenchUpstream:
    """`POST .../responses` → EVENTS SSE events SPACING_S apart (none with `?fast`); `GET` → tiny JSON."""

    def __init__(self, *, compact: bool = True) -> None:
        self.compact = compact
        """False: SSE data is spaced JSON (`json.dumps` defaults) instead of the API's compact JSON."""
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._server: asyncio.AbstractServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> BenchUpstream:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("benchmark upstream did not start")
        return self

    def stop(self) -> None:
        async def close() -> None:
            assert self._server is not None
            self._server.close()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def boot() -> None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
            self.port = self._server.sockets[0].getsockname()[1]
            self._ready.set()

        self._loop.run_until_complete(boot())
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
                length = int(headers.get("content-length", "0"))
                body = await reader.readexactly(length) if length else b""
                if method == "POST" and target.split("?")[0].endswith("/responses"):
                    spacing = 0.0 if "fast" in target else SPACING_S
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                        b"Transfer-Encoding: chunked\r\n\r\n"
                    )
                    for index, event in enumerate(_stream_events(EVENTS, _echo(body), self.compact)):
                        if index and spacing:
                            await asyncio.sleep(spacing)
                        writer.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
                        await writer.drain()
                    writer.write(b"0\r\n\r\n")
                else:
                    body = b'{"object":"list","data":[{"id":"gpt-bench","object":"model"}]}'
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                        + str(len(body)).encode()
                        + b"\r\n\r\n"
                        + body
                    )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

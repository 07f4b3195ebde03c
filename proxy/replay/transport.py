"""`CassetteTransport`: an httpx transport that serves a cassette in-process, without a proxy.

    transport = CassetteTransport("cassettes/fix_bug.jsonl")
    client = OpenAI(base_url="http://cassette/v1", api_key="x",
                    http_client=httpx.Client(transport=transport))
    ...
    transport.report.raise_for_problems()

The same `ReplaySession` as the proxy's `Replayer` chooses every answer, so matching (strict or
sequential, `match_on`, `ignore`, path mapping) and the `ReplayReport` are the same; only the seam
differs (httpx's `BaseTransport`, as `httpx.MockTransport`). Use it where a second mitmproxy cannot run:
the harness capturing through its own proxy in the same process, SDK clients and tests. It works for
sync and async clients, of `httpx` and of `httpx2` (openai 3.x and the clients built on it):

    client = OpenAI(base_url="http://cassette/v1", api_key="x",
                    http_client=httpx2.Client(transport=transport))

Each answer is built with the types of the library the request came from (httpx2's client asserts its
own `SyncByteStream`), so one transport serves either. SSE answers stream event by event
(`pace="recorded"` keeps the recorded spacing); a stream the upstream cut ends with that library's
`RemoteProtocolError`, as a real cut does.

A path the client sends without the recorded upstream's prefix gets it added (a recording of
`https://host/backend-api/codex` replays to a client pointed at `http://cassette`).
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from ctxscope.proxy.replay.cassette import Answer, Cassette, load_cassette
from ctxscope.proxy.replay.matching import request_path
from ctxscope.proxy.replay.options import PaceMode, ReplayOptions
from ctxscope.proxy.replay.report import ReplayReport
from ctxscope.proxy.replay.session import ReplaySession

__all__ = ["CassetteTransport"]

_CUT = "ctxscope replay: the recorded stream was cut here (peer closed connection without a complete body)"


class CassetteTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Answers each request from a cassette; `report` says what happened (as the `ReplayServer`'s)."""

    def __init__(
        self, cassette: Cassette | Path | str, options: ReplayOptions | None = None, **changes: Any
    ) -> None:
        """`changes` are `ReplayOptions` fields (`match="sequential"`, `pace=...`), applied to `options`."""
        loaded = cassette if isinstance(cassette, Cassette) else load_cassette(Path(cassette))
        self.session = ReplaySession(loaded, ReplayOptions.of(options, **changes))

    @property
    def cassette(self) -> Cassette:
        assert self.session.cassette is not None
        return self.session.cassette

    @property
    def report(self) -> ReplayReport:
        """A snapshot of what the replay did so far."""
        return self.session.report.snapshot()

    # ---- httpx / httpx2 seams ----

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        answer = self._answer(request, request.read())
        response: httpx.Response = _response(
            _library(request), answer, request, self.session.options.pace, sync=True
        )
        return response

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        answer = self._answer(request, await request.aread())
        response: httpx.Response = _response(
            _library(request), answer, request, self.session.options.pace, sync=False
        )
        return response

    def _answer(self, request: httpx.Request, raw: bytes) -> Answer:
        path = request_path(request.url.raw_path.decode("ascii", "replace"))
        prefix = self.cassette.upstream_prefix.rstrip("/")
        if prefix and not path.startswith(prefix + "/"):
            path = prefix + path
        answer = self.session.answer(request.method, path, _body(raw))
        assert answer is not None  # None only when forwarding upstream, which a transport never does
        return answer


def _library(request: httpx.Request) -> ModuleType:
    """The HTTP library whose client sent `request` (`httpx` or `httpx2`: same API, distinct types)."""
    return sys.modules.get(type(request).__module__.partition(".")[0], httpx)


def _response(http: ModuleType, answer: Answer, request: httpx.Request, pace: PaceMode, *, sync: bool) -> Any:
    """`http.Response` for `answer`: the whole body, or its SSE events as that library's byte stream."""
    if not answer.is_stream:
        return http.Response(answer.status, headers=answer.headers, content=answer.body, request=request)
    stream_type = _stream_types(http)[0 if sync else 1]
    return http.Response(
        answer.status, headers=answer.headers, stream=stream_type(answer, pace), request=request
    )


@functools.cache
def _stream_types(http: ModuleType) -> tuple[type, type]:
    """Sync and async event streams subclassing `http`'s own byte-stream bases (its client checks them)."""
    cut_error: type[Exception] = http.RemoteProtocolError

    class SyncEvents(http.SyncByteStream):  # type: ignore[name-defined,misc]
        def __init__(self, answer: Answer, pace: PaceMode) -> None:
            self.answer, self.pace = answer, pace

        def __iter__(self) -> Iterator[bytes]:
            for wait, chunk in _delays(self.answer, self.pace):
                if wait:
                    time.sleep(wait)
                yield chunk
            if self.answer.cut:
                raise cut_error(_CUT)

    class AsyncEvents(http.AsyncByteStream):  # type: ignore[name-defined,misc]
        def __init__(self, answer: Answer, pace: PaceMode) -> None:
            self.answer, self.pace = answer, pace

        async def __aiter__(self) -> AsyncIterator[bytes]:
            for wait, chunk in _delays(self.answer, self.pace):
                if wait:
                    await asyncio.sleep(wait)
                yield chunk
            if self.answer.cut:
                raise cut_error(_CUT)

    return SyncEvents, AsyncEvents


def _body(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _delays(answer: Answer, pace: PaceMode) -> Iterator[tuple[float, bytes]]:
    """(seconds to wait first, chunk) per SSE event."""
    previous = 0.0
    for t_ms, chunk in answer.events:
        wait = max(0.0, (t_ms - previous) / 1000) if pace == "recorded" else 0.0
        previous = t_ms
        yield wait, chunk

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
sync and async clients. SSE answers stream event by event (`pace="recorded"` keeps the recorded
spacing); a stream the upstream cut ends with `httpx.RemoteProtocolError`, as a real cut does.

A path the client sends without the recorded upstream's prefix gets it added (a recording of
`https://host/backend-api/codex` replays to a client pointed at `http://cassette`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx

from proxy.replay.cassette import Answer, Cassette, load_cassette
from proxy.replay.matching import DEFAULT_MATCH_ON, request_path
from proxy.replay.options import MatchMode, PaceMode
from proxy.replay.report import ReplayReport
from proxy.replay.session import ReplaySession

__all__ = ["CassetteTransport"]

_CUT = "ctxscope replay: the recorded stream was cut here (peer closed connection without a complete body)"


class CassetteTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Answers each request from a cassette; `report` says what happened (as the `ReplayServer`'s)."""

    def __init__(
        self,
        cassette: Cassette | Path | str,
        *,
        match: MatchMode = "strict",
        pace: PaceMode = "fast",
        ignore: Iterable[str] = (),
        match_on: Iterable[str] = DEFAULT_MATCH_ON,
        map_paths: Iterable[tuple[str, str]] = (),
        live_cwd: str | None = None,
        on_event: Callable[[str], None] | None = None,
    ) -> None:
        loaded = cassette if isinstance(cassette, Cassette) else load_cassette(Path(cassette))
        self.session = ReplaySession(
            loaded,
            match=match,
            pace=pace,
            ignore=ignore,
            match_on=match_on,
            map_paths=map_paths,
            live_cwd=live_cwd,
            on_event=on_event,
        )

    @property
    def cassette(self) -> Cassette:
        assert self.session.cassette is not None
        return self.session.cassette

    @property
    def report(self) -> ReplayReport:
        """A snapshot of what the replay did so far."""
        return self.session.report.snapshot()

    # ---- httpx seams ----

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        answer = self._answer(request, request.read())
        if not answer.is_stream:
            return _plain(answer, request)
        return httpx.Response(
            answer.status,
            headers=answer.headers,
            stream=_SyncEvents(answer, self.session.pace),
            request=request,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        answer = self._answer(request, await request.aread())
        if not answer.is_stream:
            return _plain(answer, request)
        return httpx.Response(
            answer.status,
            headers=answer.headers,
            stream=_AsyncEvents(answer, self.session.pace),
            request=request,
        )

    def _answer(self, request: httpx.Request, raw: bytes) -> Answer:
        path = request_path(request.url.raw_path.decode("ascii", "replace"))
        prefix = self.cassette.upstream_prefix.rstrip("/")
        if prefix and not path.startswith(prefix + "/"):
            path = prefix + path
        answer = self.session.answer(request.method, path, _body(raw))
        assert answer is not None  # None only when forwarding upstream, which a transport never does
        return answer


def _body(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _plain(answer: Answer, request: httpx.Request) -> httpx.Response:
    return httpx.Response(answer.status, headers=answer.headers, content=answer.body, request=request)


def _delays(answer: Answer, pace: PaceMode) -> Iterator[tuple[float, bytes]]:
    """(seconds to wait first, chunk) per SSE event."""
    previous = 0.0
    for t_ms, chunk in answer.events:
        wait = max(0.0, (t_ms - previous) / 1000) if pace == "recorded" else 0.0
        previous = t_ms
        yield wait, chunk


class _SyncEvents(httpx.SyncByteStream):
    def __init__(self, answer: Answer, pace: PaceMode) -> None:
        self.answer, self.pace = answer, pace

    def __iter__(self) -> Iterator[bytes]:
        for wait, chunk in _delays(self.answer, self.pace):
            if wait:
                time.sleep(wait)
            yield chunk
        if self.answer.cut:
            raise httpx.RemoteProtocolError(_CUT)


class _AsyncEvents(httpx.AsyncByteStream):
    def __init__(self, answer: Answer, pace: PaceMode) -> None:
        self.answer, self.pace = answer, pace

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for wait, chunk in _delays(self.answer, self.pace):
            if wait:
                await asyncio.sleep(wait)
            yield chunk
        if self.answer.cut:
            raise httpx.RemoteProtocolError(_CUT)

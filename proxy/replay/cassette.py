"""A cassette: the ordered answers a replay serves, loaded from a recording or a script file.

`load_cassette(path)` tells the two apart by content (a recording's first line is a ctxscope header;
a script is one JSON document with `"format": "ctxscope-script"` or a bare list). Either way the result
is a `Cassette` of `CassetteEntry`s: model requests (`/responses`, `/responses/compact`, WebSocket
`response.create`) served in order, and other endpoints (`/models`, ...) served by method and path.
Each entry renders an `Answer` — status, headers and either a whole body or timed SSE chunks.
"""

from __future__ import annotations

import contextlib
import json
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ctxscope.proxy.endpoints import classify_endpoint, split_upstream
from ctxscope.proxy.errors import CtxscopeError, RecordingError
from ctxscope.proxy.files import input_stat
from ctxscope.proxy.model import Exchange, SseEvent
from ctxscope.proxy.replay.matching import request_path
from ctxscope.proxy.replay.options import PaceMode
from ctxscope.proxy.replay.script import Script, ScriptResponse, looks_like_script, parse_script
from ctxscope.proxy.responses.vocabulary import MODEL_ENDPOINTS
from ctxscope.proxy.store.embedded import is_html
from ctxscope.proxy.store.json_layout import LAYOUTS
from ctxscope.proxy.store.json_layout import render as render_json
from ctxscope.proxy.store.reader import read_recording

__all__ = ["Answer", "Cassette", "CassetteEntry", "load_cassette", "cassette_from_script"]

# Hop-by-hop and body-framing headers: the replayer frames the body itself (decoded, unencoded).
_DROP_HEADERS = frozenset(
    {"content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive", "date", "server"}
)
_CUT_ERRORS = frozenset({"upstream_reset", "timeout", "shutdown", "other"})


@dataclass
class Answer:
    """What the replayer sends back for one request."""

    status: int
    headers: dict[str, str]
    body: bytes = b""
    sse: list[SseEvent] | None = None
    """For SSE: the events in order (`t_ms` after the request, framing kept); `body` is then unused."""
    cut: bool = False
    """Drop the connection after the events, without ending the body (a recorded transport error)."""

    @property
    def is_stream(self) -> bool:
        return self.sse is not None

    @property
    def events(self) -> list[tuple[float, bytes]]:
        """The SSE events in wire form (the bytes recorded, framing included), with their offsets."""
        return [(event.t_ms, event.encode()) for event in self.sse or []]

    def stream_bytes(self) -> bytes:
        """The whole SSE body at once."""
        return b"".join(chunk for _, chunk in self.events)


@dataclass
class CassetteEntry:
    """One recorded (or scripted) answer and, for recordings, the request it answered."""

    index: int
    """Position among the cassette's model entries (or its other entries)."""
    method: str
    path: str | None
    """Path and query the answer belongs to; None for script entries (any `…/responses`)."""
    endpoint: str
    request_body: Any
    render: Callable[[str, Any, PaceMode], Answer]
    """(live path, live request body, pace) → the answer."""
    exchange_id: int | None = None

    @property
    def label(self) -> str:
        if self.endpoint == "websocket":
            where = f"WebSocket frame on {self.path}"  # a frame, not a POST: say so where it is named
        else:
            where = f"{self.method} {self.path}" if self.path else "script response"
        if self.exchange_id is None:
            return f"script response {self.index + 1}"  # 1-based, as a person counts a script's entries
        return f"exchange {self.exchange_id} ({where})"


@dataclass
class Cassette:
    """Answers to serve: model entries in order, other endpoints by method and path."""

    path: Path | None
    kind: Literal["recording", "script"]
    model_entries: list[CassetteEntry]
    other_entries: list[CassetteEntry] = field(default_factory=list)
    cwd: str | None = None
    """The working directory the recording was captured in (header meta `cwd`), if known."""
    warnings: list[str] = field(default_factory=list)
    upstream_prefix: str = ""
    """The path prefix of the recorded upstream (e.g. `/backend-api/codex`), added to live paths."""

    @property
    def name(self) -> str:
        return str(self.path) if self.path else "<script>"


def load_cassette(path: Path | str) -> Cassette:
    """Load a recording or a script cassette; `RecordingError` (one line) if the file is neither."""
    path = Path(path)
    info = input_stat(path)
    if info is None or not stat.S_ISREG(info.st_mode):
        raise RecordingError(f"{path} does not exist or is not a file; give a recording or a script cassette")
    try:
        with path.open("rb") as fh:
            first = fh.readline(1 << 20).strip()
    except OSError as err:
        raise RecordingError(f"cannot read {path}: {err}") from err
    if not first:
        raise RecordingError(f"{path} is empty; give a recording or a script cassette")
    head = _json_or_none(first)
    if isinstance(head, dict) and head.get("kind") == "header" or is_html(first):
        return _from_recording(path)  # a recording, or an HTML report that carries one
    try:
        document = json.loads(path.read_bytes())
    except (ValueError, RecursionError):
        document = None
    if looks_like_script(document):
        return cassette_from_script(parse_script(document, source=str(path)), path)
    if isinstance(head, dict) and "format" in head:
        return _from_recording(path)  # the reader explains what is wrong with the header
    raise RecordingError(
        f"{path} is neither a ctxscope recording nor a script cassette (see docs/cassettes.md)"
    )


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


# ---- recordings -----------------------------------------------------------------------------


def _from_recording(path: Path) -> Cassette:
    recording = read_recording(path)
    exchanges = sorted(recording.exchanges, key=lambda e: (e.started_at, e.id))
    model: list[CassetteEntry] = []
    other: list[CassetteEntry] = []
    for exchange in exchanges:
        if exchange.endpoint == "websocket" and not isinstance(exchange.request_body, dict):
            continue  # the connection-level handshake exchange: nothing to answer over HTTP
        is_model = exchange.endpoint in MODEL_ENDPOINTS
        bucket = model if is_model else other
        bucket.append(
            CassetteEntry(
                index=len(bucket),
                method="POST" if exchange.endpoint == "websocket" else exchange.method,
                path=request_path(exchange.url),
                endpoint=exchange.endpoint,
                request_body=exchange.request_body,
                render=_recorded_renderer(exchange),
                exchange_id=exchange.id,
            )
        )
    meta = recording.header.meta
    cwd = meta.get("cwd")
    prefix = ""
    if isinstance(meta.get("upstream"), str):
        with contextlib.suppress(CtxscopeError):
            prefix = split_upstream(meta["upstream"])[1]
    if not model and not other:
        raise RecordingError(f"{path} holds no exchanges to replay")
    return Cassette(
        path=path,
        kind="recording",
        model_entries=model,
        other_entries=other,
        cwd=cwd if isinstance(cwd, str) else None,
        warnings=list(recording.warnings),
        upstream_prefix=prefix,
    )


def _recorded_renderer(exchange: Exchange) -> Callable[[str, Any, PaceMode], Answer]:
    def render(live_path: str, live_body: Any, pace: PaceMode) -> Answer:
        return recorded_answer(exchange)

    return render


def recorded_answer(exchange: Exchange) -> Answer:
    """The answer a recorded exchange got, ready to send again."""
    headers = {k: v for k, v in exchange.response_headers.items() if k.lower() not in _DROP_HEADERS}
    error = exchange.error
    if exchange.sse:
        headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        headers["content-type"] = "text/event-stream"
        cut = error is not None and error.kind in _CUT_ERRORS
        return Answer(status=exchange.status or 200, headers=headers, sse=list(exchange.sse), cut=cut)
    if exchange.status is None:
        message = (
            f"recorded transport error: {error.kind}: {error.message}" if error else "no response recorded"
        )
        body = json.dumps({"error": {"type": "ctxscope_recorded_error", "message": message}}).encode()
        return Answer(status=502, headers={"content-type": "application/json"}, body=body)
    if exchange.response_raw is not None:
        body = exchange.response_raw.encode()
    elif exchange.response_body is not None and exchange.response_layout in LAYOUTS:
        body = render_json(exchange.response_body, exchange.response_layout)
    elif exchange.response_body is not None:  # recorded before layouts were kept
        body = json.dumps(exchange.response_body, ensure_ascii=False).encode()
    else:
        body = (exchange.response_text or "").encode()
    return Answer(status=exchange.status, headers=headers, body=body)


# ---- scripts ----------------------------------------------------------------------------------


def cassette_from_script(script: Script, path: Path | None = None) -> Cassette:
    """A cassette serving a parsed script: its responses in order, its `endpoints` by method and path."""
    model = [
        CassetteEntry(
            index=r.index,
            method="POST",
            path=None,
            endpoint="responses",
            request_body=None,
            render=_script_renderer(r, script.model),
        )
        for r in script.responses
    ]
    other = [
        CassetteEntry(
            index=i,
            method=str(e.get("method", "GET")).upper(),
            path=request_path(e["path"]),
            endpoint="other",
            request_body=None,
            render=_endpoint_renderer(e),
        )
        for i, e in enumerate(script.endpoints)
    ]
    return Cassette(path=path, kind="script", model_entries=model, other_entries=other)


def _script_renderer(spec: ScriptResponse, default_model: str) -> Callable[[str, Any, PaceMode], Answer]:
    def render(live_path: str, live_body: Any, pace: PaceMode) -> Answer:
        headers = {"x-request-id": f"req_script_{spec.index + 1:04d}", **spec.headers}
        if spec.http_status is not None:
            body = spec.body if spec.body is not None else _error_body(spec.http_status)
            headers.setdefault("content-type", "application/json")
            return Answer(status=spec.http_status, headers=headers, body=json.dumps(body).encode())
        if classify_endpoint(live_path) == "responses/compact":
            output = spec.output_items(default_model)
            headers["content-type"] = "application/json"
            return Answer(status=200, headers=headers, body=json.dumps({"output": output}).encode())
        events = spec.events(live_body, default_model)
        if isinstance(live_body, dict) and not live_body.get("stream"):
            # A non-streaming request gets the final Responses object as JSON.
            headers["content-type"] = "application/json"
            final = events[-1].get("response") if "response" in events[-1] else None
            if final is None:  # a cut stream has no final object
                return Answer(status=502, headers=headers, body=json.dumps(_error_body(502)).encode())
            return Answer(status=200, headers=headers, body=json.dumps(final).encode())
        headers["content-type"] = "text/event-stream"
        timed = [
            SseEvent(t_ms=i * spec.pace_ms, event=e["type"], data=json.dumps(e)) for i, e in enumerate(events)
        ]
        return Answer(status=200, headers=headers, sse=timed, cut=spec.cut)

    return render


def _endpoint_renderer(endpoint: dict[str, Any]) -> Callable[[str, Any, PaceMode], Answer]:
    def render(live_path: str, live_body: Any, pace: PaceMode) -> Answer:
        body = endpoint.get("body")
        headers = {str(k): str(v) for k, v in endpoint.get("headers", {}).items()}
        if isinstance(body, str):
            headers.setdefault("content-type", "text/plain")
            raw = body.encode()
        else:
            headers.setdefault("content-type", "application/json")
            raw = json.dumps(body).encode()
        return Answer(status=int(endpoint.get("status", 200)), headers=headers, body=raw)

    return render


def _error_body(status: int) -> dict[str, Any]:
    kinds = {
        429: "rate_limit_exceeded",
        401: "invalid_api_key",
        500: "server_error",
        503: "server_is_overloaded",
    }
    code = kinds.get(status, "scripted_error")
    return {"error": {"message": f"scripted HTTP {status}", "type": code, "code": code}}

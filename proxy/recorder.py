"""The Recorder addon: relay every exchange untouched and write it to a recording.

In-process:  `ProxyServer([Recorder(RecordingWriter(path))], upstream=...)`
Standalone:  `mitmdump -s "$(python -c 'import ctxscope.proxy.recorder as m; print(m.__file__)')"
             --set ctxscope_out=capture.jsonl --mode reverse:https://...` (in a checkout: `-s proxy/recorder.py`)

Nothing is buffered on the way through. `requestheaders` hangs a `BodyTap` on `flow.request.stream`:
mitmproxy forwards each request chunk upstream as it arrives and the tap keeps a copy (a late Codex
request carries ~660 KB of history; buffered, the upstream would see its first byte only after the
proxy had the last). `responseheaders` hangs a `StreamTap` on `flow.response.stream`, which returns
each chunk at once and keeps it with its arrival time (the events are parsed from those on the
worker). When a flow ends, what went through (the request's chunks, the headers as mitmproxy holds
them, the kept response) is handed to the worker as a
job, a module-level builder (`build_http`, ...) and its plain-data arguments: the builder makes the
`Exchange` and `RecordingWriter.write` stores it. The worker is a thread (`WriteWorker`), or, given a
`RecordingProcess` for a writer, a process of its own (`ctxscope proxy` and `ctxscope run` do that).

On the proxy's loop a chunk costs a list append and a finished flow a dict of its fields; joining,
decoding, JSON parsing, header dicts, redaction and storing (~5 ms for a 660 KB body, most of it in
`RecordingWriter.write`; ~0.3 ms for a short `GET /models`) happen on the worker.

A proxy that must see a whole request before it acts keeps mitmproxy's buffering: when the recorder
shares the proxy with the `Replayer` (cassette record mode `new`, the harness's script provider), which
matches whole requests, or when it is handed a flow whose body was already read, it takes the body from
`flow.request.raw_content` as before.

WebSocket (`responses_websockets`): frames are relayed by mitmproxy; each client `response.create`
frame becomes its own exchange (endpoint "websocket", `request_body` = the frame, `sse` = the server
frames that answered it up to `response.completed`/`failed`/`incomplete`/`error`). The handshake
flow becomes the connection-level exchange written at `websocket_end`; its `ws_frames` list every
frame, with the text of frames already held by a turn exchange replaced by that exchange's id.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from mitmproxy import ctx, http

from ctxscope.proxy.capture_filter import CaptureFilter
from ctxscope.proxy.endpoints import classify_endpoint
from ctxscope.proxy.flow_fields import (
    MAX_TEXT,
    classify_error,
    decode_body,
    fields_dict,
    fold_sse,
    headers_dict,
    json_or_none,
    parse_body,
    stream_ended,
    ws_close_reason,
)
from ctxscope.proxy.model import Exchange, SseEvent, TransportError, TransportErrorKind, WsFrame
from ctxscope.proxy.record_process import RecordingProcess
from ctxscope.proxy.responses import fold_events
from ctxscope.proxy.responses.vocabulary import HTTP_MODEL_ENDPOINTS, TERMINAL_EVENTS
from ctxscope.proxy.store.json_layout import layout_of
from ctxscope.proxy.stream_tap import BodyTap, KeptResponse, StreamTap
from ctxscope.proxy.write_worker import WriteWorker

__all__ = ["ExchangeWriter", "Recorder"]

_WHOLE_REQUEST_ADDONS = ("replayer",)
"""mitmproxy names of addons that need a request's whole body in their `request` hook."""


OnExchange = Callable[[Exchange], None]
_META = "ctxscope"  # key in flow.metadata


class ExchangeWriter(Protocol):
    """Where the recorder puts exchanges: `RecordingWriter`, or anything shaped like it."""

    def next_id(self) -> int:
        """A fresh exchange id (thread-safe: flows start on the proxy's loop)."""
        ...

    def write(self, exchange: Exchange) -> Exchange:
        """Persist one finished exchange; returns it as stored."""
        ...

    def close(self) -> None: ...


class _FlowState:
    """What the recorder learns about one HTTP flow while it runs."""

    def __init__(self, exchange_id: int) -> None:
        self.id = exchange_id
        self.started_at = time.time()
        self.t0 = time.monotonic()
        self.ttfb_ms: float | None = None
        self.tap: StreamTap | None = None
        self.request_tap: BodyTap | None = None
        """The streamed request body's copy (None when mitmproxy buffered the request)."""
        self.done = False
        self.ws_turn: dict[str, Any] | None = None
        self.ws_frame_owner: dict[int, int] = {}  # frame index -> turn exchange id
        self.closed_after: str | None = None
        """Set when a peer hung up after the stream's terminal event (not an error)."""
        self.summary = False
        """Recorded as a summary exchange: no bodies (see `CaptureFilter`)."""
        self.counter: _ByteCounter | None = None

    def ms(self) -> float:
        return round((time.monotonic() - self.t0) * 1000, 3)


class Recorder:
    """mitmproxy addon recording every exchange to `writer` (a `RecordingWriter`)."""

    def __init__(
        self,
        writer: ExchangeWriter | RecordingProcess | None = None,
        on_exchange: OnExchange | None = None,
        select: CaptureFilter | None = None,
        stream_requests: bool = True,
    ) -> None:
        self.writer = writer
        self.on_exchange = on_exchange
        self.select = select
        """Which requests are recorded in full; the others become summary exchanges (None: all full)."""
        self.stream_requests = stream_requests
        """Relay request bodies chunk by chunk (False: let mitmproxy buffer them, as a replayer needs)."""
        self._own_writer = False
        self._worker: WriteWorker | RecordingProcess
        if isinstance(writer, RecordingProcess):  # builds and writes in its own process
            self._worker = writer.attach(self._exchanged)
        else:
            self._worker = WriteWorker(lambda: self.writer, lambda exchange: self._exchanged(exchange))
        self.shutting_down = False
        """Set by the host before it stops the proxy: flows cut from then on are "interrupted by shutdown"."""

    # -- mitmproxy options (for `mitmdump -s`) --------------------------------------------
    def load(self, loader: Any) -> None:
        loader.add_option("ctxscope_out", str, "", "ctxscope: write the recording to this file")

    def configure(self, updated: set[str]) -> None:
        if "ctxscope_out" in updated and ctx.options.ctxscope_out and self.writer is None:
            from ctxscope.proxy.store.writer import RecordingWriter

            self.writer = RecordingWriter(Path(ctx.options.ctxscope_out), meta={"via": "mitmdump"})
            self._own_writer = True

    def done(self) -> None:
        self._worker.stop()
        if self._own_writer and self.writer is not None:
            self.writer.close()

    def _exchanged(self, exchange: Exchange) -> None:
        if self.on_exchange is not None:
            self.on_exchange(exchange)

    # -- what the worker did (tests, CLI shutdown) ----------------------------------------
    @property
    def recorded(self) -> int:
        """How many exchanges have been written so far."""
        return self._worker.recorded

    @property
    def processed(self) -> int:
        """How many finished exchanges the worker has handled (written or failed)."""
        return self._worker.processed

    @property
    def failures(self) -> list[str]:
        """One line per exchange that could not be recorded, or per failed write."""
        return self._worker.failures

    def drain(self, timeout: float = 30.0) -> bool:
        """Wait until every finished flow handed to the worker has been written."""
        return self._worker.drain(timeout)

    def wait_for(self, count: int, timeout: float = 30.0) -> bool:
        """Wait until at least `count` exchanges have been handled (see `failures`); False on timeout."""
        return self._worker.wait_for(count, timeout)

    # -- HTTP hooks -----------------------------------------------------------------------
    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if self.writer is None:
            return
        state = _FlowState(self.writer.next_id())
        request = flow.request
        if self.select is not None:
            state.summary = not self.select.full(request.pretty_host, request.path, request.headers)
        flow.metadata[_META] = state
        if self._may_stream(flow):
            state.request_tap = BodyTap(keep=not state.summary)
            request.stream = state.request_tap

    def _may_stream(self, flow: http.HTTPFlow) -> bool:
        """Whether the request body can be relayed chunk by chunk (see the module's docstring)."""
        request = flow.request
        if not self.stream_requests or request.stream or flow.response is not None:
            return False  # off, someone else streams it, or it is answered without an upstream
        if request.timestamp_end is not None:
            return False  # handed over after the body was read (record mode `new`): nothing to stream
        try:
            master: Any = ctx.master
        except AttributeError:  # hooks called without a running master (unit tests)
            return True
        return not any(master.addons.get(name) is not None for name in _WHOLE_REQUEST_ADDONS)

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        state = flow.metadata.get(_META)
        response = flow.response
        if state is None or response is None:
            return
        state.ttfb_ms = state.ms()
        if response.status_code == 101:
            return  # WebSocket handshake: frames are handled by the websocket hooks
        if state.summary:
            state.counter = _ByteCounter()
            response.stream = state.counter  # streamed through, counted, not kept
            return
        state.tap = StreamTap(
            state.t0,
            response.headers.get("content-type", ""),
            response.headers.get("content-encoding", ""),
        )
        response.stream = state.tap

    def response(self, flow: http.HTTPFlow) -> None:
        state = flow.metadata.get(_META)
        if state is None or state.done or (flow.response and flow.response.status_code == 101):
            return
        self._finish_http(flow, state, None)

    def error(self, flow: http.HTTPFlow) -> None:
        state = flow.metadata.get(_META)
        if state is None or state.done:
            return
        message = flow.error.msg if flow.error else "unknown error"
        if self.shutting_down:  # neither side gave up: the proxy was stopped with this flow in flight
            self._finish_http(flow, state, _interrupted(message))
            return
        if state.ttfb_ms is None and "client disconnected" in message.lower():
            message += f" (no response from the upstream after {state.ms():.0f} ms)"
        complete = flow.request.timestamp_end is not None
        kind = classify_error(message, flow.response is not None, _client_closed_first(flow), complete)
        ended = stream_ended(state.tap.events) if state.tap is not None and state.tap.is_sse else None
        if ended is not None and kind == "client_abort":
            # The whole answer had arrived: a client hanging up after `response.completed` (Codex does,
            # without waiting for the end of the chunked body) is how a stream ends, not an error.
            state.closed_after = f"client closed the stream after {ended}"
            self._finish_http(flow, state, None)
            return
        self._finish_http(flow, state, TransportError(kind=kind, message=message))

    def _finish_http(self, flow: http.HTTPFlow, state: _FlowState, error: TransportError | None) -> None:
        state.done = True
        ended_at, duration = time.time(), state.ms()
        tap = state.tap
        if tap is not None and not tap.finished:
            tap(b"")  # an aborted stream never got its end-of-stream call
        request, response = flow.request, flow.response
        request_tap = state.request_tap
        # Buffered by mitmproxy (or kept by mitmproxy 12's store_streamed_bodies): the flow has it.
        buffered = request.raw_content or b""
        if buffered or request_tap is None or not request_tap.size:
            request_tap = None
        req_encoding = request.headers.get("content-encoding", "")
        fields: dict[str, Any] = {
            "id": state.id,
            "started_at": state.started_at,
            "ended_at": ended_at,
            "method": request.method,
            "url": request.url,
            "status": response.status_code if response is not None else None,
            # as mitmproxy holds them; made dicts (and the endpoint classified) by the builder, on the worker
            "request_headers": request.headers.fields,
            "response_headers": response.headers.fields if response is not None else (),
            "ttfb_ms": state.ttfb_ms,
            "duration_ms": duration,
            "error": error,
            "meta": {"transport": "http"},
        }
        if state.closed_after is not None:
            fields["meta"]["closed"] = state.closed_after
        if request.timestamp_end is None:
            fields["meta"]["request_incomplete"] = True  # the exchange ended before the request body did
        if state.summary:
            fields["request_size"] = request_tap.size if request_tap is not None else len(buffered)
            counted = state.counter.size if state.counter is not None else None
            fields["meta"] |= {"summary": True, "response_size": counted}
            self._worker.submit(build_exchange, fields)
            return
        body_bytes: bytes | None = None
        if response is not None and tap is None and response.raw_content:  # not streamed (rare)
            body_bytes = response.get_content(strict=False)
        request_copy = None
        if request_tap is not None:
            request_copy = (request_tap.kept(), request_tap.truncated, request_tap.size)
        kept = tap.kept() if tap is not None else None
        self._worker.submit(build_http, fields, buffered, request_copy, req_encoding, kept, body_bytes)

    # -- WebSocket hooks ------------------------------------------------------------------
    def websocket_start(self, flow: http.HTTPFlow) -> None:
        state = flow.metadata.get(_META)
        if state is not None:
            state.ws_turn = None

    def websocket_message(self, flow: http.HTTPFlow) -> None:
        state = flow.metadata.get(_META)
        # A flow has state only if a writer was there when it started (see `request`).
        if state is None or flow.websocket is None or self.writer is None or state.summary:
            return
        index = len(flow.websocket.messages) - 1
        message = flow.websocket.messages[-1]
        text = message.text if message.is_text else None
        obj = json_or_none(text) if text is not None else None
        kind = obj.get("type") if isinstance(obj, dict) else None
        if message.from_client and kind == "response.create":
            if state.ws_turn is not None:
                self._finish_ws_turn(
                    flow,
                    state,
                    TransportError(kind="other", message="a new response.create arrived before this turn ended"),
                )
            state.ws_turn = {
                "id": self.writer.next_id(),
                "started_at": time.time(),
                "t0": time.monotonic(),
                "request": obj,
                "size": len(message.content),
                "events": [],
                "parsed": [],  # the server frames' JSON objects, folded on the worker thread
            }
            state.ws_frame_owner[index] = state.ws_turn["id"]
            return
        turn = state.ws_turn
        if turn is None or message.from_client or text is None:
            return
        t_ms = round((time.monotonic() - turn["t0"]) * 1000, 3)
        turn["events"].append(SseEvent(t_ms=t_ms, event=kind, data=text))
        state.ws_frame_owner[index] = turn["id"]
        if isinstance(obj, dict):
            turn["parsed"].append(obj)
        if kind in TERMINAL_EVENTS:
            self._finish_ws_turn(flow, state, None)

    def websocket_end(self, flow: http.HTTPFlow) -> None:
        state = flow.metadata.get(_META)
        if state is None or state.done:
            return
        state.done = True
        if state.ws_turn is not None:  # the connection ended before the turn's terminal event
            reason = ws_close_reason(flow)
            by_client = flow.websocket is not None and flow.websocket.closed_by_client
            kind: TransportErrorKind = "client_abort" if by_client else "upstream_reset"
            error = TransportError(kind=kind, message=f"connection {reason}")
            self._finish_ws_turn(flow, state, _interrupted(reason) if self.shutting_down else error)
        frames = []
        t0_wall = state.started_at
        for index, message in enumerate(flow.websocket.messages if flow.websocket else []):
            frame = WsFrame(
                t_ms=round((message.timestamp - t0_wall) * 1000, 3),
                from_client=message.from_client,
                text=None if index in state.ws_frame_owner or not message.is_text or state.summary else message.text,
                binary_size=None if message.is_text else len(message.content),
            )
            if index in state.ws_frame_owner:
                frame = frame.model_copy(update={"exchange_id": state.ws_frame_owner[index]})
            frames.append(frame)
        request, response = flow.request, flow.response
        fields: dict[str, Any] = {
            "id": state.id,
            "started_at": state.started_at,
            "ended_at": time.time(),
            "method": request.method,
            "url": request.url,
            "endpoint": "websocket",
            "status": response.status_code if response is not None else None,
            "request_headers": headers_dict(request.headers),
            "response_headers": headers_dict(response.headers) if response is not None else {},
            "ttfb_ms": state.ttfb_ms,
            "duration_ms": state.ms(),
            "ws_frames": frames,
            "meta": {"transport": "websocket", "close": ws_close_reason(flow)},
        }
        self._worker.submit(build_exchange, fields)

    def _finish_ws_turn(self, flow: http.HTTPFlow, state: _FlowState, error: TransportError | None) -> None:
        turn, state.ws_turn = state.ws_turn, None
        if turn is None:
            return
        fields: dict[str, Any] = {
            "id": turn["id"],
            "started_at": turn["started_at"],
            "ended_at": time.time(),
            "method": "WS",
            "url": flow.request.url,
            "endpoint": "websocket",
            "status": flow.response.status_code if flow.response is not None else None,
            "request_headers": headers_dict(flow.request.headers),
            "request_body": turn["request"],
            "request_size": turn["size"],
            "sse": turn["events"],
            "ttfb_ms": turn["events"][0].t_ms if turn["events"] else None,
            "duration_ms": round((time.monotonic() - turn["t0"]) * 1000, 3),
            "error": error,
            "meta": {"transport": "websocket", "connection": state.id},
        }
        self._worker.submit(build_ws_turn, fields, turn["parsed"])


# -- building exchanges: on the recorder's worker, never on the proxy's loop ------------------------
# Module-level functions of plain data, so that a job pickles by reference when the worker is a
# recording process of its own (`ctxscope.proxy.record_process`).


def _header_dicts(fields: dict[str, Any]) -> dict[str, Any]:
    """Headers handed over as mitmproxy's `Headers.fields` (cheap to copy and pickle) made dicts; an HTTP
    exchange's endpoint classified (it needs the request headers)."""
    for key in ("request_headers", "response_headers"):
        if isinstance(fields.get(key), tuple):
            fields[key] = fields_dict(fields[key])
    if "endpoint" not in fields:
        fields["endpoint"] = classify_endpoint(fields["url"], fields["request_headers"])
    return fields


def build_exchange(fields: dict[str, Any]) -> Exchange:
    """An exchange whose fields are all known (summaries, WebSocket connections)."""
    return Exchange(**_header_dicts(fields))


def build_ws_turn(fields: dict[str, Any], parsed: list[dict[str, Any]]) -> Exchange:
    """One WebSocket turn: its response folded from the server frames' JSON."""
    return Exchange(**_header_dicts(fields), response=fold_events(parsed))


def build_http(
    fields: dict[str, Any],
    buffered: bytes,
    request_copy: tuple[list[bytes], bool, int] | None,
    req_encoding: str,
    kept: KeptResponse | None,
    body_bytes: bytes | None,
) -> Exchange:
    """One HTTP exchange from what went through: the request body (mitmproxy's buffered one, or the
    `BodyTap`'s chunks with whether it truncated and the wire size), the response as the `StreamTap`
    kept it, or a response body mitmproxy read whole."""
    _header_dicts(fields)
    raw_body = buffered
    if request_copy is not None:
        chunks, truncated, wire_size = request_copy
        raw_body = b"".join(chunks)
        if truncated:
            fields["meta"]["request_truncated"] = True
            fields["meta"]["request_wire_size"] = wire_size
    body = decode_body(raw_body, req_encoding)
    fields["request_size"] = len(body)
    fields["request_body"], fields["request_text"] = parse_body(body)
    if kept is not None and kept.is_sse:
        fields["sse"] = events = kept.events()
        fields["response"] = fold_sse(events)
        fields["meta"]["response_size"] = kept.size
    else:
        data = kept.body() if kept is not None else (body_bytes or b"")
        fields["response_body"], fields["response_text"] = parse_body(data)
        if fields["response_body"] is not None:  # keep what a replay needs to send the same bytes
            fields["response_layout"] = layout_of(data, fields["response_body"])
            if fields["response_layout"] is None and len(data) <= MAX_TEXT:
                fields["response_raw"] = data.decode("utf-8", "replace")
        fields["meta"]["response_size"] = kept.size if kept is not None else len(data)
        if kept is not None and kept.truncated:
            fields["meta"]["response_truncated"] = True
        resp = fields["response_body"]
        if fields["endpoint"] in HTTP_MODEL_ENDPOINTS and isinstance(resp, dict):
            if isinstance(resp.get("output"), list):
                fields["response"] = resp
    if req_encoding:
        fields["meta"]["request_content_encoding"] = req_encoding
    return Exchange(**fields)


def _interrupted(detail: str) -> TransportError:
    return TransportError(kind="shutdown", message=f"interrupted by shutdown ({detail})")


class _ByteCounter:
    """`flow.response.stream` for a summary exchange: passes chunks through, keeps only their size."""

    def __init__(self) -> None:
        self.size = 0

    def __call__(self, chunk: bytes) -> bytes:
        self.size += len(chunk)
        return chunk


def _client_closed_first(flow: http.HTTPFlow) -> bool:
    """The client's connection had ended and the upstream's had not (or ended later)."""
    client_end = getattr(flow.client_conn, "timestamp_end", None)
    server_end = getattr(flow.server_conn, "timestamp_end", None) if flow.server_conn else None
    return client_end is not None and (server_end is None or client_end < server_end)


addons = [Recorder()]

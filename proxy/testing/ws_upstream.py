"""A local Responses WebSocket upstream for tests: `WsUpstream`, behaving as the OpenAI backend was
observed to behave toward Codex 0.169 (see docs/cassettes.md and the Codex notes).

A `websockets` server on 127.0.0.1 (port 0, a thread of its own) serving `GET …/responses` upgrades.
Every client `response.create` frame is answered with a streamed response, one text frame per event:

- a prewarm (`generate: false`) gets an empty `response.completed` (no output), as the real backend
  answers Codex's first frame of each socket;
- `previous_response_id` chains are rebuilt per connection: the full input of a turn is the previous
  turn's full input, then that turn's output items (the client does not re-send the model's own
  output), then the frame's `input`; an id this connection never answered (another socket's, or one
  `forget()` dropped) gets the `previous_response_not_found` error frame, after which Codex reconnects
  and re-sends the whole request;
- remote compaction v2: an input ending in `{"type": "compaction_trigger"}` is answered with exactly
  one `compaction` item;
- anything else gets `handler(request)`'s output items, by default one assistant message
  `answer to <the last user text>`.

What came in is kept: `handshakes` (the upgrade headers, one per connection) and `requests`
(`WsRequest`: the frame, its rebuilt input, the connection number). A `GET` without an upgrade gets
404, or 426 for `…/responses`; other HTTP methods are not served (the connection is closed).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve

from ctxscope.proxy.responses import compaction, response_stream, text_message
from ctxscope.proxy.responses.vocabulary import COMPACTION_TRIGGER

__all__ = ["WsRequest", "WsUpstream", "last_user_text"]

Item = list[dict[str, Any]]
"""The events of one output item, as the builders in `ctxscope.proxy.responses` make them."""


@dataclass(frozen=True)
class WsRequest:
    """One `response.create` frame as the upstream understood it."""

    connection: int
    """0 for the first socket opened, 1 for the next, ..."""
    frame: dict[str, Any]
    full_input: list[dict[str, Any]]
    """The frame's input after the `previous_response_id` chain (if any) is rebuilt."""

    @property
    def prewarm(self) -> bool:
        return self.frame.get("generate") is False

    @property
    def compaction(self) -> bool:
        items = self.frame.get("input") or []
        return bool(items) and isinstance(items[-1], dict) and items[-1].get("type") == COMPACTION_TRIGGER


WsHandler = Callable[[WsRequest], Sequence[Item]]


def last_user_text(items: Sequence[dict[str, Any]]) -> str:
    """The text of the last user message in `items` ("" if none): what the default answer names."""
    for item in reversed(items):
        if item.get("type", "message") == "message" and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                texts = [p.get("text", "") for p in content if isinstance(p, dict)]
                return texts[-1] if texts else ""
    return ""


def _default_answer(request: WsRequest) -> Sequence[Item]:
    return [text_message(f"answer to {last_user_text(request.full_input)}")]


@dataclass
class _Stored:
    full_input: list[dict[str, Any]]
    output: list[dict[str, Any]]


@dataclass
class WsUpstream:
    """A Responses WebSocket server on loopback; use as a context manager (`with WsUpstream() as up`)."""

    handler: WsHandler = _default_answer
    """Output items for each real turn (not prewarms or compactions)."""
    usage: Callable[[WsRequest], dict[str, Any] | None] | None = None
    """The `usage` each answer reports (None: the builders' default); a large `input_tokens` makes
    Codex compact before its next request."""
    compaction_summary: str = "enc-compacted"
    """The `encrypted_content` of the `compaction` item answering a compaction request."""
    hang_up_after: int | None = None
    """Send only this many events of each answer, then close the connection (code 1011): an upstream
    failing mid-turn."""
    on_other: Callable[[Any], list[dict[str, Any]]] | None = None
    """The frames answering a client frame that is not `response.create` (default: an error frame)."""
    handshakes: list[dict[str, str]] = field(default_factory=list)
    requests: list[WsRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._stores: list[dict[str, _Stored]] = []
        self._server: Server | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the upstream first"
        return int(self._server.socket.getsockname()[1])

    @property
    def url(self) -> str:
        """Base URL, e.g. `http://127.0.0.1:PORT` (the socket is at `…/v1/responses` as `ws://`)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/responses"

    def forget(self) -> None:
        """Drop every stored response: the next chained frame gets `previous_response_not_found`."""
        with self._lock:
            for store in self._stores:
                store.clear()

    def frames(self) -> list[dict[str, Any]]:
        """Every `response.create` frame received, in order."""
        with self._lock:
            return [r.frame for r in self.requests]

    def start(self) -> WsUpstream:
        self._server = serve(self._serve, "127.0.0.1", 0, process_request=self._http_only)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> WsUpstream:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- serving (on the server's threads) ----

    @staticmethod
    def _http_only(connection: ServerConnection, request: Request) -> Response | None:
        """Refuse what is not a WebSocket upgrade: 426 for `…/responses`, 404 for anything else."""
        if request.headers.get("upgrade", "").lower() == "websocket":
            return None
        path = request.path.split("?", 1)[0].rstrip("/")
        status = HTTPStatus.UPGRADE_REQUIRED if path.endswith("/responses") else HTTPStatus.NOT_FOUND
        body = json.dumps({"error": {"message": f"{status.phrase}: this upstream serves WebSockets"}})
        # The websockets server closes the connection after a plain HTTP answer: say so, or a client
        # reuses the connection for its next request and finds it closed (a flaky RemoteProtocolError).
        headers = Headers(
            [
                ("content-type", "application/json"),
                ("content-length", str(len(body))),
                ("connection", "close"),
            ]
        )
        return Response(status.value, status.phrase, headers, body.encode())

    def _serve(self, ws: ServerConnection) -> None:
        with self._lock:
            connection = len(self._stores)
            store: dict[str, _Stored] = {}
            self._stores.append(store)
            headers = ws.request.headers.raw_items() if ws.request is not None else []
            self.handshakes.append({k.lower(): v for k, v in headers})
        try:
            for message in ws:
                frame = json.loads(message)
                events = self._answer(connection, store, frame)
                for event in events[: self.hang_up_after]:
                    ws.send(json.dumps(event))
                if self.hang_up_after is not None:
                    ws.close(code=1011, reason="upstream failure")
                    return
        except ConnectionClosed:
            return  # Codex closes TCP without a close frame when it exits

    def _answer(self, connection: int, store: dict[str, _Stored], frame: Any) -> list[dict[str, Any]]:
        if not isinstance(frame, dict) or frame.get("type") != "response.create":
            if self.on_other is not None:
                return self.on_other(frame)
            return [_error(400, "invalid_request_error", None, "expected a response.create frame")]
        previous = frame.get("previous_response_id")
        with self._lock:
            base = store.get(previous) if isinstance(previous, str) else None
        if previous and base is None:
            message = f"Previous response with id '{previous}' not found."
            return [_error(400, "invalid_request_error", "previous_response_not_found", message)]
        full_input = [*(base.full_input + base.output if base else []), *(frame.get("input") or [])]
        request = WsRequest(connection, frame, full_input)
        with self._lock:
            self.requests.append(request)
            self._counter += 1
            response_id = f"resp_ws{connection}_{self._counter:04d}"
        if request.prewarm:
            items: Sequence[Item] = []
        elif request.compaction:
            items = [compaction(self.compaction_summary)]
        else:
            items = self.handler(request)
        reported = self.usage(request) if self.usage is not None else None
        model = str(frame.get("model", "gpt-test"))
        events = response_stream(*items, model=model, response_id=response_id, usage=reported)
        output = events[-1]["response"].get("output", []) if events else []
        with self._lock:
            store[response_id] = _Stored(full_input, list(output))
        return events


def _error(status: int, kind: str, code: str | None, message: str) -> dict[str, Any]:
    """An `error` frame in the backend's shape (status at the top, the error object inside)."""
    error: dict[str, Any] = {"type": kind, "message": message}
    if code is not None:
        error.update(code=code, param="previous_response_id")
    return {"type": "error", "status": status, "error": error}

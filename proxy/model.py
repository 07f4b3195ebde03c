"""Typed exchanges: what one recorded HTTP request/response (or one WebSocket turn) holds.

These are the objects the reader returns and the writer accepts. Bodies here are always resolved
(the content-addressed storage is an on-disk detail of `ctxscope.proxy.store`), and always already redacted
when they come from a file.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.proxy.responses.sse import encode_frame, wire_has_data, wire_terminated
from ctxscope.proxy.responses.vocabulary import RESPONSES_ENDPOINTS

EndpointKind = Literal["responses", "responses/compact", "models", "websocket", "other"]
TransportErrorKind = Literal[
    "upstream_reset", "timeout", "client_abort", "upstream_unreachable", "shutdown", "other"
]


class SseEvent(BaseModel):
    """One server-sent event (one block of the stream) as it arrived at the proxy.

    `encode()` gives back the exact bytes received: the plain `event:`/`data:` form, or the kept
    `wire` framing with the data put back in.
    """

    model_config = ConfigDict(extra="allow")

    t_ms: float
    """Arrival time relative to the exchange start, in milliseconds."""
    event: str | None = None
    """The `event:` field, if the server sent one (clients key on the JSON `type` instead)."""
    data: str
    """The raw `data:` payload (usually one JSON object); empty for a block without a data line."""
    wire: str | None = None
    """The block as received with the data values left out, when it is not the plain
    `event: NAME\\ndata: DATA\\n\\n`: comments, `id:`/`retry:`, `data:x`, CRLF or CR endings,
    a block without data, or a last block the stream ended inside (see `ctxscope.proxy.responses.sse`)."""

    @property
    def has_data(self) -> bool:
        """Whether the block dispatches an event at all (a lone comment or `event:` line does not)."""
        return self.wire is None or wire_has_data(self.wire)

    @property
    def terminated(self) -> bool:
        """False for a last block the stream ended inside: clients never dispatch it."""
        return self.wire is None or wire_terminated(self.wire)

    @property
    def dispatched(self) -> bool:
        """Whether an SSE client sees this block as an event."""
        return self.has_data and self.terminated

    def encode(self) -> bytes:
        """The block's bytes exactly as received (data as stored: redacted where it had secrets)."""
        return encode_frame(self.event, self.data, self.wire)


class WsFrame(BaseModel):
    """One WebSocket frame relayed by the proxy."""

    model_config = ConfigDict(extra="allow")

    t_ms: float
    from_client: bool
    text: str | None = None
    binary_size: int | None = None


class TransportError(BaseModel):
    """What went wrong below HTTP: the recording says what happened even when no response came."""

    kind: TransportErrorKind
    message: str


class Exchange(BaseModel):
    """One request and what came back.

    For WebSocket transports each `response.create` frame is its own exchange (endpoint
    ``"websocket"``): `request_body` is the frame, `sse` holds the server frames that answered it
    (as events with `data` = frame text), and `ws_frames` is only set on the connection-level
    exchange (handshake), which has `request_body` None.
    """

    model_config = ConfigDict(extra="allow")

    id: int
    """Sequence number in the recording, from 0, in the order exchanges completed."""
    started_at: float
    """Unix time (seconds) when the request began."""
    ended_at: float | None = None
    method: str
    url: str
    endpoint: EndpointKind
    status: int | None = None
    request_headers: dict[str, str] = Field(default_factory=dict)
    request_body: Any = None
    """Parsed JSON request body (decoded from gzip/br/zstd if sent so), or None."""
    request_text: str | None = None
    """The body as text when it is not JSON (truncated for huge non-JSON bodies)."""
    request_size: int = 0
    """Size in bytes of the decoded request body."""
    response_headers: dict[str, str] = Field(default_factory=dict)
    sse: list[SseEvent] = Field(default_factory=list)
    response_body: Any = None
    """Parsed JSON body of a non-streaming response (e.g. /models, /responses/compact)."""
    response_text: str | None = None
    response_layout: str | None = None
    """How `response_body` was laid out on the wire (`compact`, `indent2+nl`, ... see
    `ctxscope.proxy.store.json_layout`), so a replay sends the same bytes."""
    response_raw: str | None = None
    """The JSON body's exact text, kept only when no layout reproduces it."""
    response: dict[str, Any] | None = None
    """The reconstructed Responses object (id, model, status, output items, usage, error)."""
    ttfb_ms: float | None = None
    duration_ms: float | None = None
    error: TransportError | None = None
    ws_frames: list[WsFrame] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)
    """Free-form notes (e.g. replay mismatches, the transport: 'http' or 'websocket')."""

    @property
    def is_model_request(self) -> bool:
        """True for exchanges that carry a model request body (HTTP /responses or a WS response.create)."""
        return self.endpoint in RESPONSES_ENDPOINTS and isinstance(self.request_body, dict)


class RecordingHeader(BaseModel):
    """The first line of every recording."""

    model_config = ConfigDict(extra="allow")

    format: Literal["ctxscope-recording"] = "ctxscope-recording"
    version: str
    """`MAJOR.MINOR`; a reader refuses a newer major version."""
    created_at: float
    tool: str
    """Which program wrote it, e.g. `ctxscope 0.1.0`."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """Free-form: upstream, mode, cwd of the capture (used by replay to map paths)."""

"""The wire vocabulary of the Responses API and of Codex's requests, spelled once.

Terminal stream events and the statuses they end a response with, the roles request headers play
(naming the conversation, changing on every request, carrying Codex's turn metadata), the metadata
keys that name a conversation, Codex's request kinds (`request_kind` in `x-codex-turn-metadata`), the
side requests a client makes beside a conversation, the endpoint kinds that carry a model request, and
the input item that asks for a remote compaction. The proxy (recorder, fold, summaries, replay
normalisation), the harness (its typed stream, the requests it builds) and the inspector (turns,
threads, comparison) read these names from here, so a new event or header is added in one place.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

__all__ = [
    "COMPACTION_REQUEST_KINDS",
    "COMPACTION_TRIGGER",
    "CONVERSATION_KEYS",
    "DONE_EVENT",
    "ERROR_EVENT",
    "FINAL_STATUSES",
    "HTTP_MODEL_ENDPOINTS",
    "ITEM_PASSTHROUGH",
    "MODEL_ENDPOINTS",
    "PER_REQUEST_HEADERS",
    "RECORDED_IN_FULL",
    "RESPONSES_ENDPOINTS",
    "SIDE_SOURCES",
    "TERMINAL_EVENTS",
    "TERMINAL_EVENT_STATUS",
    "THREAD_HEADERS",
    "UNSUCCESSFUL_STATUSES",
    "CodexHeader",
    "Endpoint",
    "MetadataKey",
    "RequestKind",
    "SideKind",
    "TerminalEvent",
    "header_value",
    "is_compaction_trigger",
    "side_label",
    "turn_metadata",
]

ERROR_EVENT = "error"
"""The bare `error` event (Codex's WebSocket and some servers send it instead of `response.failed`)."""


class TerminalEvent(StrEnum):
    """The `response.*` events that end a stream."""

    COMPLETED = "response.completed"
    FAILED = "response.failed"
    INCOMPLETE = "response.incomplete"


TERMINAL_EVENT_STATUS: dict[str, str] = {
    TerminalEvent.COMPLETED.value: "completed",
    TerminalEvent.FAILED.value: "failed",
    TerminalEvent.INCOMPLETE.value: "incomplete",
}
"""`response.*` events that end a stream → the response status they carry."""

TERMINAL_EVENTS = frozenset({*TERMINAL_EVENT_STATUS, ERROR_EVENT})
"""Events after which a Responses stream has nothing more to say."""

DONE_EVENT = "response.done"
"""The Realtime API's end of a response (some Responses-like servers send it): like `response.completed`
it ends every field the response streamed. Not a terminal event of the Responses stream itself."""

FINAL_STATUSES = ("completed", "failed", "incomplete", "cancelled")
"""Response statuses a finished response can have (anything else on a stream: it was cut)."""

UNSUCCESSFUL_STATUSES = ("failed", "incomplete")
"""Final statuses that are a problem worth reporting."""


class CodexHeader(StrEnum):
    """Request headers (and `client_metadata` keys) Codex sends, by name."""

    SESSION_ID = "session_id"
    SESSION = "session-id"
    THREAD = "thread-id"
    CLIENT_REQUEST_ID = "x-client-request-id"
    TURN_METADATA = "x-codex-turn-metadata"
    WINDOW_ID = "x-codex-window-id"
    TURN_STATE = "x-codex-turn-state"
    INSTALLATION_ID = "x-codex-installation-id"
    BETA_FEATURES = "x-codex-beta-features"
    ORIGINATOR = "originator"
    WS_REQUEST_START = "x-codex-ws-stream-request-start-ms"
    """`client_metadata` of a WebSocket frame: when it was sent (epoch ms, new every frame)."""


class MetadataKey(StrEnum):
    """Keys of Codex's turn metadata (`x-codex-turn-metadata`) and `client_metadata` that name the
    conversation (beside the headers of `THREAD_HEADERS`)."""

    THREAD_ID = "thread_id"
    SESSION_ID = "session_id"


CONVERSATION_KEYS = (MetadataKey.THREAD_ID.value, MetadataKey.SESSION_ID.value)
"""Role: metadata keys that name the conversation, strongest first."""


class Endpoint(StrEnum):
    """What a request is to (`ctxscope.proxy.model.EndpointKind`, `ctxscope.proxy.endpoints.classify_endpoint`)."""

    RESPONSES = "responses"
    COMPACT = "responses/compact"
    MODELS = "models"
    WEBSOCKET = "websocket"
    OTHER = "other"


RESPONSES_ENDPOINTS = frozenset({Endpoint.RESPONSES.value, Endpoint.WEBSOCKET.value})
"""Endpoints whose request is a Responses request body (HTTP `/responses`, a WebSocket `response.create`)."""

MODEL_ENDPOINTS = RESPONSES_ENDPOINTS | {Endpoint.COMPACT.value}
"""Endpoints that ask the model something: a turn or a remote compaction (`/responses/compact`)."""

HTTP_MODEL_ENDPOINTS = frozenset({Endpoint.RESPONSES.value, Endpoint.COMPACT.value})
"""The model endpoints reached by an HTTP POST (the WebSocket's frames are not)."""

RECORDED_IN_FULL = MODEL_ENDPOINTS | {Endpoint.MODELS.value}
"""Endpoints a forward-mode capture records in full (the model catalog too); other traffic as summaries."""


ITEM_PASSTHROUGH = "internal_chat_message_metadata_passthrough"
"""Codex's per-item metadata (`turn_id`, `create_time` in epoch s, `content_item_kinds`: its own label
for each content part). Metadata about the item, not what the model reads."""


THREAD_HEADERS = (
    CodexHeader.THREAD.value,
    CodexHeader.SESSION.value,
    CodexHeader.SESSION_ID.value,
    "x-session-id",
)
"""Role: headers that name the conversation, strongest first (Codex sends `session_id`)."""

PER_REQUEST_HEADERS = frozenset(
    {
        "content-length",
        "date",
        "traceparent",
        "idempotency-key",
        "x-request-id",
        "x-stainless-retry-count",
        "x-stainless-read-timeout",
        "x-stainless-timeout",
        CodexHeader.CLIENT_REQUEST_ID.value,
        CodexHeader.TURN_METADATA.value,
        CodexHeader.WINDOW_ID.value,
        CodexHeader.TURN_STATE.value,
    }
)
"""Role: request headers whose value changes from request to request whatever the context (ids,
lengths, times, per-turn metadata): kept apart in storage, not a difference between two requests."""


class RequestKind(StrEnum):
    """What a model request is for: Codex's `request_kind`, plus `compact` for `/responses/compact`."""

    TURN = "turn"
    PREWARM = "prewarm"
    COMPACTION = "compaction"
    MEMORY = "memory"
    COMPACT = "compact"
    """Remote compaction (`POST /responses/compact`): ctxscope's name, not sent by Codex."""


COMPACTION_REQUEST_KINDS = (RequestKind.COMPACTION.value, RequestKind.COMPACT.value)
"""Request kinds that ask for a summary of the history (local and remote compaction)."""


class SideKind(StrEnum):
    """Requests a client makes beside a conversation: they belong to a thread but are not its steps."""

    TITLE = "thread_title"
    """Codex's TUI asks for a session title on a thread of its own (`thread_source: thread_title`)."""
    PREWARM = "prewarm"
    """Codex's WebSocket prewarm (`generate: false`): warms the cache, produces no answer."""
    MODELS = "models"
    """`GET /models`: the model catalog."""

    @property
    def label(self) -> str:
        """What a view calls the kind."""
        return _SIDE_LABELS[self]


_SIDE_LABELS = {SideKind.TITLE: "title", SideKind.PREWARM: "prewarm", SideKind.MODELS: "models list"}


def side_label(kind: str) -> str:
    """What views call a side request of `kind` (a `SideKind` value; an unknown kind as itself)."""
    return SideKind(kind).label if kind in SideKind._value2member_map_ else kind


SIDE_SOURCES = frozenset({SideKind.TITLE.value})
"""Codex `thread_source` values of requests made beside the conversation, not part of it."""


def header_value(headers: Mapping[str, str], name: str) -> str | None:
    """A request header by name, matched case-insensitively; None when absent."""
    lowered = name.lower()
    for key, value in headers.items():
        if key.lower() == lowered:
            return value
    return None


def turn_metadata(headers: Mapping[str, str], body: Any) -> dict[str, Any]:
    """Codex's parsed `x-codex-turn-metadata`: the header's fields, each overridden by the request's own
    `client_metadata` copy; {} when absent.

    The request's own copy wins for every field: over the WebSocket the header belongs to the handshake,
    written when the socket opened (`request_kind: prewarm`) and stale for every later frame, while each
    frame's `client_metadata` says what that frame is (`turn`, `compaction`)."""
    meta = body.get("client_metadata") if isinstance(body, dict) else None
    own = meta.get(CodexHeader.TURN_METADATA) if isinstance(meta, dict) else None
    return {**_json_object(header_value(headers, CodexHeader.TURN_METADATA)), **_json_object(own)}


def _json_object(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, str):
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


COMPACTION_TRIGGER = "compaction_trigger"
"""The input item that ends a remote compaction (v2) request; the answer is one `compaction` item."""


def is_compaction_trigger(body: Any) -> bool:
    """True for a remote compaction v2 request: its input ends in a `compaction_trigger` item."""
    items = body.get("input") if isinstance(body, dict) else None
    if not isinstance(items, Sequence) or isinstance(items, str) or not items:
        return False
    last = items[-1]
    return isinstance(last, dict) and last.get("type") == COMPACTION_TRIGGER

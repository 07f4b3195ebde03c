"""Pieces of an `Exchange` taken from mitmproxy flows: headers, decoded bodies, errors, close reasons.

Pure helpers used by the Recorder; kept apart so the addon module holds only the hooks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mitmproxy import http
from mitmproxy.net import encoding as mitm_encoding

from ctxscope.proxy.model import SseEvent, TransportErrorKind
from ctxscope.proxy.responses import fold_events
from ctxscope.proxy.responses.vocabulary import TERMINAL_EVENTS
from ctxscope.proxy.store.format import loads as _loads
from ctxscope.proxy.store.writer import MAX_TEXT_BODY

__all__ = [
    "MAX_TEXT",
    "TERMINAL_EVENTS",
    "classify_error",
    "stream_ended",
    "decode_body",
    "fold_sse",
    "headers_dict",
    "json_or_none",
    "parse_body",
    "ws_close_reason",
]

MAX_TEXT = MAX_TEXT_BODY
"""Non-JSON bodies are kept as text up to this many characters (the size is always recorded)."""

# Connection-setup failures (mitmproxy passes the OS / resolver message through).
_UNREACHABLE = (
    "connect call failed",
    "connection refused",
    "name or service not known",
    "nodename nor servname",
    "failed to resolve",
    "getaddrinfo",
    "no route to host",
    "network is unreachable",
    "errno 111",
)


def stream_ended(events: list[SseEvent]) -> str | None:
    """The terminal event type if the stream already delivered one (`response.completed`, ...), else None."""
    for event in reversed(events):
        if not event.dispatched:
            continue
        if event.event in TERMINAL_EVENTS:
            return event.event
        obj = json_or_none(event.data) if '"type"' in event.data else None
        kind = obj.get("type") if isinstance(obj, dict) else None
        return kind if kind in TERMINAL_EVENTS else None
    return None


def classify_error(
    message: str, got_response: bool, client_closed_first: bool = False, request_complete: bool = True
) -> TransportErrorKind:
    """Map mitmproxy's error message to a TransportErrorKind, attributing a reset to the side that did it.

    mitmproxy words an HTTP/2 RST_STREAM the same way whichever peer sent it ("stream reset by client
    (CANCEL)"); CANCEL is what a client sends when it stops reading (mitmproxy maps it to 499 Client
    Closed Request), and `client_closed_first` says the client's connection ended before the upstream's.
    "peer closed connection without sending complete message body" names no peer either: before the
    request was complete (`request_complete` False) and with no response yet, the message cut short is
    the client's request.
    """
    text = message.lower()
    if "timed out" in text or "timeout" in text:
        return "timeout"
    if "client disconnected" in text or "client closed" in text or "killed" in text:
        return "client_abort"
    if not request_complete and not got_response and "without sending complete message body" in text:
        return "client_abort"
    if client_closed_first or ("stream reset" in text and "(cancel)" in text):
        return "client_abort"
    if not got_response and any(marker in text for marker in _UNREACHABLE):
        return "upstream_unreachable"
    if "server" in text or "peer closed" in text or "reset" in text or "incomplete" in text:
        return "upstream_reset"
    return "other"


def headers_dict(headers: Any) -> dict[str, str]:
    """mitmproxy Headers → dict; repeated headers joined with ', ' (cookies too)."""
    return fields_dict(headers.fields)


def fields_dict(fields: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """mitmproxy's `Headers.fields` → the dict `headers_dict` gives, without building a `Headers`.

    The same as `{name: ", ".join(headers.get_all(name)) for name in headers.keys()}` (a test holds them
    equal): a name as it first came, names matched case-insensitively, bytes decoded as mitmproxy does
    (UTF-8, surrogateescape). One pass: `get_all` per name scans every field again, which was a seventh of
    the recording process's time on a short request."""
    names: dict[bytes, str] = {}
    values: dict[bytes, list[str]] = {}
    for raw_name, raw_value in fields:
        key = raw_name.lower()
        value = raw_value.decode("utf-8", "surrogateescape")
        if key in values:
            values[key].append(value)
        else:
            names[key] = raw_name.decode("utf-8", "surrogateescape")
            values[key] = [value]
    return {names[key]: ", ".join(parts) for key, parts in values.items()}


def decode_body(raw: bytes, encoding: str) -> bytes:
    """Undo a request's Content-Encoding (gzip, deflate, br, zstd); the raw bytes if that fails."""
    if not raw or not encoding or encoding.lower() in ("identity", "none"):
        return raw
    try:
        decoded = mitm_encoding.decode(raw, encoding.lower())
    except (ValueError, TypeError):
        return raw
    return decoded if isinstance(decoded, bytes) else raw


def parse_body(data: bytes) -> tuple[Any, str | None]:
    """(parsed JSON, None) or (None, text) for non-JSON / malformed JSON; (None, None) when empty."""
    if not data:
        return None, None
    try:
        return _loads(data), None
    except (ValueError, UnicodeDecodeError):
        return None, data[: MAX_TEXT * 4].decode("utf-8", "replace")[:MAX_TEXT]


def json_or_none(text: str) -> Any:
    """The parsed JSON value, or None if `text` is not JSON."""
    try:
        return _loads(text)
    except ValueError:
        return None


def fold_sse(events: list[SseEvent]) -> dict[str, Any] | None:
    """The Responses object rebuilt from recorded events (non-JSON data lines are skipped).

    Only what a client dispatches counts: not a last event the stream ended inside.
    """
    parsed = (json_or_none(event.data) for event in events if event.dispatched)
    return fold_events(obj for obj in parsed if isinstance(obj, dict))


def ws_close_reason(flow: http.HTTPFlow) -> str:
    """`closed by server (code 1011, reason)` for a finished WebSocket flow."""
    ws = flow.websocket
    if ws is None:
        return "closed"
    who = "client" if ws.closed_by_client else "server"
    return f"closed by {who} (code {ws.close_code}{', ' + ws.close_reason if ws.close_reason else ''})"

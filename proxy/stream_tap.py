"""What the recorder hangs on `flow.response.stream` and `flow.request.stream`: relay each chunk, keep a copy.

mitmproxy calls a tap with every body chunk (transfer-decoded but still content-encoded) and once with
`b""` at the end. A tap returns the chunk unchanged at once — the other side sees the body as it is
sent — and keeps what the recording needs on the side.

`StreamTap` (responses) keeps an SSE stream's chunks as they arrived, each with its arrival time, and
nothing more: decoding (gzip/deflate/br/zstd, incrementally) and parsing the events is done from those
chunks by `sse_events`, on the recording worker, after the stream was relayed. An event's time is that
of the chunk that completed it, as if it had been parsed on arrival; if incremental decoding fails the
whole body is decoded after the fact and its events share the end time. (Parsed in the relay, the
events of a short stream cost about 50 µs of the proxy's event loop per request.)

`BodyTap` (requests) only keeps the raw chunks: joining, decoding, parsing and redacting them is the
recorder worker's job, after the request has been relayed.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mitmproxy.net import encoding as mitm_encoding

from ctxscope.proxy.model import SseEvent
from ctxscope.proxy.responses import SseFrame, SseParser

__all__ = ["BodyTap", "KeptResponse", "StreamTap", "incremental_decoder", "sse_events"]

# Non-SSE bodies (and request bodies) are kept for the recording up to this size; beyond it only the
# size is recorded.
MAX_KEPT_BODY = 64 * 1024 * 1024


_Decoder = Callable[[bytes], bytes]
Timed = tuple[float, bytes]
"""A chunk as it arrived: (milliseconds since the exchange started, the bytes, still content-encoded)."""


def incremental_decoder(content_encoding: str) -> _Decoder | None:
    """A chunk → bytes decoder for one `Content-Encoding`, or None for identity / unknown."""
    enc = content_encoding.strip().lower()
    if enc in ("", "identity", "none"):
        return None
    if enc in ("gzip", "x-gzip", "deflate"):
        obj = zlib.decompressobj(wbits=47 if enc != "deflate" else 15)
        return lambda chunk: obj.decompress(chunk)
    if enc == "br":
        import brotli

        dec: Any = brotli.Decompressor()
        return dec.process  # type: ignore[no-any-return]
    if enc == "zstd":
        import zstandard

        zobj: Any = zstandard.ZstdDecompressor().decompressobj()
        return zobj.decompress  # type: ignore[no-any-return]
    raise ValueError(f"unsupported content-encoding {content_encoding!r}")


def _decoded(raw: bytes, content_encoding: str) -> bytes:
    """A whole body content-decoded when possible (the raw bytes if decoding fails)."""
    enc = content_encoding.strip().lower()
    if not raw or enc in ("", "identity", "none"):
        return raw
    try:
        decoded = mitm_encoding.decode(raw, enc)
    except (ValueError, TypeError):
        return raw
    return decoded if isinstance(decoded, bytes) else raw


def _event(t_ms: float, frame: SseFrame) -> SseEvent:
    # Every block is kept, framing included, so a replay sends the very bytes received.
    return SseEvent(t_ms=t_ms, event=frame.event, data=frame.data, wire=None if frame.plain else frame.wire)


def sse_events(timed: list[Timed], end_ms: float | None, content_encoding: str) -> list[SseEvent]:
    """The events of a stream from its chunks as they arrived: each stamped with the arrival time of
    the chunk that completed it; a last block the stream ended inside only once it has ended
    (`end_ms`, None while it is still going), stamped with the end."""
    try:
        decoder = incremental_decoder(content_encoding)
        parser = SseParser()
        events: list[SseEvent] = []
        for t_ms, chunk in timed:
            data = decoder(chunk) if decoder is not None else chunk
            events += [_event(t_ms, f) for f in parser.feed_frames(data)]
        if end_ms is not None:
            events += [_event(end_ms, f) for f in parser.flush_frames()]
        return events
    except Exception:  # noqa: BLE001 - an encoding we cannot decode piece by piece: decode it whole
        pass
    body = _decoded(b"".join(chunk for _, chunk in timed), content_encoding)
    parser = SseParser()
    end = end_ms if end_ms is not None else (timed[-1][0] if timed else 0.0)
    # bytes that may not have decoded at all: keep real events, not framing around noise
    frames = parser.feed_frames(body) + (parser.flush_frames() if end_ms is not None else [])
    return [_event(end, f) for f in frames if f.has_data]


class StreamTap:
    """Callable for `flow.response.stream`: keeps an SSE stream's timed chunks, or the raw body."""

    def __init__(self, t0: float, content_type: str, content_encoding: str) -> None:
        self.t0 = t0
        self.is_sse = "text/event-stream" in content_type.lower()
        self.content_encoding = content_encoding
        self.size = 0
        """Bytes received on the wire (content-encoded)."""
        self.truncated = False
        self.finished = False
        self._raw: list[bytes] = []
        """A body that is not a stream, as received, up to MAX_KEPT_BODY."""
        self._timed: list[Timed] = []
        """A stream's chunks as received, with their arrival times."""
        self._end_ms: float | None = None
        self._events: list[SseEvent] | None = None

    def __call__(self, chunk: bytes) -> bytes:
        # Everything here must be cheap and must never raise: the chunk goes out unchanged regardless.
        try:
            if chunk:
                self.size += len(chunk)
                if self.is_sse:
                    self._timed.append((self._ms(), chunk))
                    self._events = None
                elif self.size <= MAX_KEPT_BODY:
                    self._raw.append(chunk)
                else:
                    self.truncated = True
            elif not self.finished:
                self.finished = True
                self._end_ms = self._ms()
                self._events = None
        except Exception:  # noqa: BLE001 - a recording problem must never break the relay
            pass
        return chunk

    def _ms(self) -> float:
        return round((time.monotonic() - self.t0) * 1000, 3)

    @property
    def events(self) -> list[SseEvent]:
        """The stream's events so far (parsed on first asking: the relay itself never parses)."""
        if not self.is_sse:
            return []
        if self._events is None:
            self._events = sse_events(self._timed, self._end_ms, self.content_encoding)
        return self._events

    def body(self) -> bytes:
        """The kept body, content-decoded when possible (raw bytes if decoding fails)."""
        return self.kept().body()

    def kept(self) -> KeptResponse:
        """What the recording needs of the finished response: plain data (bytes, numbers), so it can be
        handed to another thread or process as it is, and parsed there."""
        return KeptResponse(
            self.is_sse, self._timed, self._end_ms, self._raw, self.size, self.truncated, self.content_encoding
        )


@dataclass(frozen=True, slots=True)
class KeptResponse:
    """A finished response as a `StreamTap` kept it: a stream's timed chunks, or the raw body's chunks."""

    is_sse: bool
    timed: list[Timed]
    end_ms: float | None
    raw: list[bytes]
    size: int
    """Bytes received on the wire (content-encoded)."""
    truncated: bool
    content_encoding: str

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled for the recording process: by its fields, a third of the time slots' default takes.
        fields = (self.is_sse, self.timed, self.end_ms, self.raw, self.size, self.truncated, self.content_encoding)
        return KeptResponse, fields

    def events(self) -> list[SseEvent]:
        """The stream's events, parsed from its chunks (`sse_events`); none for a body."""
        return sse_events(self.timed, self.end_ms, self.content_encoding) if self.is_sse else []

    def body(self) -> bytes:
        """The kept body, content-decoded when possible (raw bytes if decoding fails)."""
        chunks = [chunk for _, chunk in self.timed] if self.is_sse else self.raw
        return _decoded(b"".join(chunks), self.content_encoding)


class BodyTap:
    """Callable for `flow.request.stream`: passes each chunk on unchanged and keeps a copy of the body.

    `keep=False` (summary exchanges) counts the bytes without keeping them. Nothing here may raise: the
    chunk goes out regardless.
    """

    def __init__(self, keep: bool = True) -> None:
        self.keep = keep
        self.size = 0
        """Bytes received (content-encoded, as on the wire)."""
        self.truncated = False
        """More than MAX_KEPT_BODY arrived: only the chunks within the first MAX_KEPT_BODY bytes are kept."""
        self.finished = False
        """mitmproxy signalled the end of the body (an aborted upload never gets there)."""
        self._chunks: list[bytes] = []

    def __call__(self, chunk: bytes) -> bytes:
        if not chunk:
            self.finished = True
            return chunk
        self.size += len(chunk)
        if self.keep:
            if self.size <= MAX_KEPT_BODY:
                self._chunks.append(chunk)
            else:
                self.truncated = True
        return chunk

    @property
    def chunks(self) -> int:
        """How many chunks were kept (a body that arrived in pieces has more than one)."""
        return len(self._chunks)

    def kept(self) -> list[bytes]:
        """The kept chunks as received, not joined (joining is the recorder worker's job)."""
        return self._chunks

    def body(self) -> bytes:
        """The kept body as received (still content-encoded)."""
        return b"".join(self._chunks)

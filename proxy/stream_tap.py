"""What the recorder hangs on `flow.response.stream` and `flow.request.stream`: relay each chunk, keep a copy.

mitmproxy calls a tap with every body chunk (transfer-decoded but still content-encoded) and once with
`b""` at the end. A tap returns the chunk unchanged at once — the other side sees the body as it is
sent — and keeps what the recording needs on the side.

`StreamTap` (responses) decodes gzip/deflate/br/zstd incrementally and feeds an `SseParser`, so each
event gets its arrival time and keeps its framing. If incremental decoding fails the raw bytes are kept
and decoded after the fact (events then share the end time).

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

__all__ = ["BodyTap", "KeptResponse", "StreamTap", "incremental_decoder"]

# Non-SSE bodies (and request bodies) are kept for the recording up to this size; beyond it only the
# size is recorded.
MAX_KEPT_BODY = 64 * 1024 * 1024


_Decoder = Callable[[bytes], bytes]


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


class StreamTap:
    """Callable for `flow.response.stream`; collects SSE events (timed) or the raw body."""

    def __init__(self, t0: float, content_type: str, content_encoding: str) -> None:
        self.t0 = t0
        self.is_sse = "text/event-stream" in content_type.lower()
        self.content_encoding = content_encoding
        self.events: list[SseEvent] = []
        self.size = 0
        """Bytes received on the wire (content-encoded)."""
        self.truncated = False
        self.finished = False
        self._raw: list[bytes] = []
        self._parser = SseParser()
        self._decode_failed = False
        try:
            self._decoder = incremental_decoder(content_encoding)
        except (ValueError, ImportError):
            self._decoder, self._decode_failed = None, True

    def __call__(self, chunk: bytes) -> bytes:
        # Everything here must be cheap and must never raise: the chunk goes out unchanged regardless.
        try:
            if chunk:
                self._watch(chunk)
            elif not self.finished:
                self._finish()
        except Exception:  # noqa: BLE001 - a recording problem must never break the relay
            self._decode_failed = True
        return chunk

    def _watch(self, chunk: bytes) -> None:
        self.size += len(chunk)
        keep_raw = not self.is_sse or self._decode_failed or self._decoder is not None
        if keep_raw:
            if self.size <= MAX_KEPT_BODY:
                self._raw.append(chunk)
            else:
                self.truncated = True
        if not self.is_sse or self._decode_failed:
            return
        data = chunk
        if self._decoder is not None:
            try:
                data = self._decoder(chunk)
            except Exception:  # noqa: BLE001 - fall back to decoding the kept raw bytes at the end
                self._decode_failed = True
                return
        self._add(self._parser.feed_frames(data))

    def _add(self, frames: list[SseFrame]) -> None:
        if not frames:
            return
        now = round((time.monotonic() - self.t0) * 1000, 3)
        # Every block is kept, framing included, so a replay sends the very bytes received.
        self.events.extend(
            SseEvent(t_ms=now, event=f.event, data=f.data, wire=None if f.plain else f.wire) for f in frames
        )

    def _finish(self) -> None:
        self.finished = True
        if self.is_sse and not self._decode_failed:
            self._add(self._parser.flush_frames())
            return
        if self.is_sse:  # incremental decode failed: decode everything now, events share the end time
            body = self.body()
            parser = SseParser()
            self.events = []
            # bytes that may not have decoded at all: keep real events, not framing around noise
            self._add([f for f in parser.feed_frames(body) + parser.flush_frames() if f.has_data])

    def body(self) -> bytes:
        """The kept body, content-decoded when possible (raw bytes if decoding fails)."""
        return self._kept(self._raw).body()

    def kept(self) -> KeptResponse:
        """What the recording needs of the finished response, without the tap's decoder and parser:
        plain data, so it can be handed to another thread or process as it is. A stream's events are
        what is recorded of it, so its raw bytes are left behind."""
        return self._kept([] if self.is_sse else self._raw)

    def _kept(self, raw: list[bytes]) -> KeptResponse:
        return KeptResponse(self.is_sse, self.events, raw, self.size, self.truncated, self.content_encoding)


@dataclass(frozen=True, slots=True)
class KeptResponse:
    """A finished response as a `StreamTap` kept it: the SSE events, or the raw body's chunks."""

    is_sse: bool
    events: list[SseEvent]
    raw: list[bytes]
    size: int
    """Bytes received on the wire (content-encoded)."""
    truncated: bool
    content_encoding: str

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled for the recording process: events as plain tuples (a model pickles ten times slower).
        events = [(e.t_ms, e.event, e.data, e.wire) for e in self.events]
        return _unpickle_kept, (self.is_sse, events, self.raw, self.size, self.truncated, self.content_encoding)

    def body(self) -> bytes:
        """The kept body, content-decoded when possible (raw bytes if decoding fails)."""
        raw = b"".join(self.raw)
        enc = self.content_encoding.strip().lower()
        if not raw or enc in ("", "identity", "none"):
            return raw
        try:
            decoded = mitm_encoding.decode(raw, enc)
        except (ValueError, TypeError):
            return raw
        return decoded if isinstance(decoded, bytes) else raw


def _unpickle_kept(
    is_sse: bool,
    events: list[tuple[float, str | None, str, str | None]],
    raw: list[bytes],
    size: int,
    truncated: bool,
    content_encoding: str,
) -> KeptResponse:
    kept = [SseEvent(t_ms=t_ms, event=event, data=data, wire=wire) for t_ms, event, data, wire in events]
    return KeptResponse(is_sse, kept, raw, size, truncated, content_encoding)


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

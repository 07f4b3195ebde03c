"""Appending exchanges to a recording: redact, dedupe, write each exchange's lines in one write.

Nothing reaches the file before the `Redactor` has seen it. Parts already stored (items,
instructions, tools, header sets) are written once; an input list that extends an earlier exchange's
list is stored as a reference to it plus what was appended.

Streams are stored in format 1.2's derived form where it rebuilds byte for byte (`derive.py`). Format
1.3 also stores event times as integer microsecond steps, each response as an earlier one plus what
changed, and large header and body values that repeat (Codex's turn metadata) as blobs. An existing
file is appended to in its own format version (1.0-1.2 files stay what they are: a 1.2 file gets none
of 1.3's forms, a 1.1 file no derived events, a 1.0 file no SSE framing, `$order` or JSON body layout
either).

The file is locked for as long as the writer has it open (`lock.py`): a second writer is refused.
A write that fails (a full disk, a file-size limit) raises `RecordingWriteError`; the exchange stays
in memory (up to `MAX_HELD` of them) and is written before the next one, so nothing is lost if the
disk recovers, and no blob is counted as stored unless its line reached the file.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from ..errors import RecordingError, RecordingWriteError
from ..model import Exchange, RecordingHeader
from ..redact import Redactor, redact_events
from ..responses.sse import wire_has_data, wire_terminated
from ..version import installed_version
from .codec import encode_body, encode_headers, encode_sse_data, ordered_hash, ordered_ref, time_steps
from .derive import derive_stream
from .format import (
    AS,
    FORMAT_VERSION,
    ITEMS,
    KIND_BLOB,
    KIND_EXCHANGE,
    KIND_HEADER,
    MIN_BLOB_CHARS,
    REF,
    STEPS,
    STREAM,
    WRITABLE_VERSIONS,
    canonical_json,
    content_hash,
    dump_line,
    loads,
)
from .lock import open_locked

__all__ = ["RecordingWriter", "MAX_TEXT_BODY", "MAX_HELD"]

# Non-JSON bodies are kept as text up to this many characters (the size is always recorded).
MAX_TEXT_BODY = 1_000_000
# How many earlier input lists are candidates for a `base` reference (covers interleaved threads).
RECENT_INPUTS = 64
# Exchanges kept in memory while writing fails; beyond this the oldest is dropped (and counted).
MAX_HELD = 256
# Large header and body values seen once (by content hash), so a repeat is stored as a blob (1.3).
SEEN_VALUES = 4096


class _Unmatchable:
    """Stands for a response part a reader would see in another key order: no SSE event derives from it."""


_UNMATCHABLE = _Unmatchable()


def _exact(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return None  # never equal: such a key is written again


def _dispatched(wire: str) -> bool:
    return wire_has_data(wire) and wire_terminated(wire)


class RecordingWriter:
    """Writes one recording file. Thread-safe: the proxy's flows may complete concurrently.

    `write(exchange)` accepts `exchange.request_body` as already-parsed JSON or as raw `bytes`
    (decoded here, off the proxy's request path as much as the caller allows).
    An existing recording at `path` is appended to, never overwritten, in the file's own format
    version; a new file is written in `version` (default: the current one; older ones for tools
    that read only those, and for benchmarks). `locked_fd`: `path` already opened by `open_locked`
    (by the process that started this one, so that the lock names it).
    """

    def __init__(
        self,
        path: Path | str,
        meta: dict[str, Any] | None = None,
        secret_headers: Iterable[str] = (),
        version: str = FORMAT_VERSION,
        locked_fd: int | None = None,
    ) -> None:
        if version not in WRITABLE_VERSIONS:
            raise RecordingError(
                f"cannot write recording format {version!r}: choose one of {', '.join(WRITABLE_VERSIONS)}"
            )
        self.version = version
        """The format version of the lines written (an appended file's own version)."""
        self._minor = int(version.split(".")[1])
        self.path = Path(path)
        self._lock = threading.Lock()
        self._redactor = Redactor(secret_headers)
        self._stored: set[str] = set()
        # stored hash -> `ordered_hash` of the blob as written, so SSE parts can restore their own key order
        self._orders: dict[str, str] = {}
        # raw content hash -> stored (redacted) hash; memory only, so raw hashes never hit the disk
        self._raw_to_stored: dict[str, str] = {}
        self._recent: deque[tuple[int, list[str]]] = deque(maxlen=RECENT_INPUTS)
        self._bodies: dict[int, dict[str, Any]] = {}  # recent exchanges' encoded bodies, for `$as`
        # the last encoded response of each key list, for a response's `$as` (1.3)
        self._responses: dict[tuple[str, ...], tuple[int, dict[str, Any]]] = {}
        self._seen: dict[str, None] = {}  # content hashes of large values written inline (1.3)
        self._next_id = 0
        self._fd: int | None = None
        self._lines: list[str] = []  # the lines of the exchange being written
        self._new_blobs: set[str] = set()  # blobs among them: stored only once the write succeeds
        self._new_raw: list[str] = []  # item cache entries made for them: forgotten if the write fails
        self._new_response: tuple[tuple[str, ...], tuple[int, dict[str, Any]]] | None = None
        self._torn = False  # a failed write left part of a line: start the next write on a new line
        self._held: deque[Exchange] = deque()
        self.exchanges_written = 0
        """Exchanges this writer wrote to the file."""
        self.dropped = 0
        """Exchanges given up because more than `MAX_HELD` were waiting for the disk."""
        self.last_error: str | None = None
        """Why the last write failed, or None once writing works again."""
        self._open(meta or {}, locked_fd)

    # -- lifecycle -------------------------------------------------------------------------
    def _open(self, meta: dict[str, Any], locked_fd: int | None) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # appended to, never truncated; refused if another writer has it. `locked_fd`: opened and locked
        # by `open_locked` in the process that started this one (the lock then names that process).
        fd = locked_fd if locked_fd is not None else open_locked(self.path)
        try:
            if os.fstat(fd).st_size > 0:
                self._resume_existing()
                self._fd = fd
                return
            self._fd = fd
            header = RecordingHeader(
                version=self.version,
                created_at=time.time(),
                tool=f"ctxscope {installed_version()}",
                meta=self._redact_meta(meta),
            )
            self._emit({"kind": KIND_HEADER, **header.model_dump()})
            self._flush()
        except BaseException:
            self._fd = None
            os.close(fd)
            raise

    def _redact_meta(self, meta: dict[str, Any]) -> dict[str, Any]:
        """Header metadata comes from callers (upstream URLs, cwd): redacted like everything else."""
        redacted = self._redactor.body(meta)
        return {
            key: self._redactor.url(value) if isinstance(value, str) and "://" in value else value
            for key, value in redacted.items()
        }

    def _resume_existing(self) -> None:
        from .reader import read_recording  # a cycle only at runtime, and only for appends

        try:
            existing = read_recording(self.path)
        except RecordingError as err:
            raise RecordingError(
                f"{self.path} exists and cannot be appended to ({err}); choose another output path"
            ) from err
        if existing.header.version not in WRITABLE_VERSIONS:
            raise RecordingError(
                f"{self.path} is a format {existing.header.version} recording, newer than this ctxscope "
                f"writes ({FORMAT_VERSION}): upgrade ctxscope or choose another output path"
            )
        self.version = existing.header.version  # appended lines stay readable as that version
        self._minor = int(self.version.split(".")[1])
        with self.path.open("rb") as fh:
            fh.seek(-1, 2)
            # start our lines on a fresh line so a torn one stays isolated
            self._torn = fh.read(1) != b"\n"
        # new secrets are numbered after the ones already in the file
        self._redactor.placeholders.continue_after(self.path.read_text("utf-8", "replace"))
        self._stored.update(existing.blob_hashes)
        self._next_id = max((e.id for e in existing.exchanges), default=-1) + 1
        for exchange_id, hashes in existing.input_hashes.items():
            self._recent.append((exchange_id, hashes))

    @property
    def redactor(self) -> Redactor:
        """The redactor of this file (`ctxscope run` teaches it the environment it gives its command)."""
        return self._redactor

    def close(self) -> None:
        """Write what is held (one last try), release the lock and close. Never raises for a write."""
        with self._lock:
            if self._fd is None:
                return
            try:
                self._write_held()
            except RecordingWriteError:
                pass  # `held` says how many exchanges never reached the file
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> int:
        """Exchanges waiting in memory for a write to succeed."""
        return len(self._held)

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------
    def next_id(self) -> int:
        """Allocate the next exchange id (ids follow request start order; lines follow completion)."""
        with self._lock:
            value = self._next_id
            self._next_id += 1
            return value

    def write(self, exchange: Exchange) -> Exchange:
        """Redact, dedupe and append one exchange. Returns it with its id (the caller's copy stays as is).

        Raises `RecordingWriteError` when the file cannot be written; the exchange is then held and
        written before the next one (or at `close`).
        """
        with self._lock:
            if self._fd is None:
                raise RecordingError(f"{self.path} is closed")
            if exchange.id < 0 or exchange.id >= self._next_id:
                if exchange.id < 0:
                    exchange = exchange.model_copy(update={"id": self._next_id})
                self._next_id = exchange.id + 1
            try:
                self._write_held()
            except RecordingWriteError:
                self._hold(exchange)
                raise
            try:
                return self._write_one(exchange)
            except RecordingWriteError:
                self._hold(exchange)
                raise

    def _hold(self, exchange: Exchange) -> None:
        self._held.append(exchange)
        while len(self._held) > MAX_HELD:
            self._held.popleft()
            self.dropped += 1

    def _write_held(self) -> None:
        while self._held:
            self._write_one(self._held[0])
            self._held.popleft()

    def _write_one(self, exchange: Exchange) -> Exchange:
        """All lines of one exchange in one write; on failure nothing of it counts as stored."""
        new_raw: list[str] = []
        self._new_raw = new_raw
        recent = len(self._recent), self._recent[-1] if self._recent else None
        try:
            written = self._write_locked(exchange)
            self._flush()
        except RecordingWriteError:
            for raw in new_raw:
                self._raw_to_stored.pop(raw, None)
            if (len(self._recent), self._recent[-1] if self._recent else None) != recent:
                self._recent.pop()
            raise
        finally:
            self._lines.clear()
            self._new_blobs.clear()
            new_response, self._new_response = self._new_response, None
        if new_response is not None:
            keys, entry = new_response
            self._responses.pop(keys, None)  # most recent last: the oldest key list goes first
            self._responses[keys] = entry
            while len(self._responses) > RECENT_INPUTS:
                del self._responses[next(iter(self._responses))]
        self.exchanges_written += 1
        return written

    def _emit(self, obj: dict[str, Any]) -> None:
        self._lines.append(dump_line(obj))

    def _flush(self) -> None:
        """Write the pending lines with `os.write` (no buffer left holding half a line after a failure)."""
        assert self._fd is not None
        data = ("\n" if self._torn else "").encode() + "".join(self._lines).encode("utf-8", "surrogatepass")
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as err:
            self._torn = self._torn or len(view) < len(data)
            self.last_error = err.strerror or type(err).__name__
            raise RecordingWriteError(f"cannot write {self.path}: {self.last_error}") from err
        finally:
            self._lines.clear()
        self._torn = False
        self.last_error = None
        self._stored |= self._new_blobs
        self._new_blobs.clear()

    def _like_base(self, encoded: dict[str, Any], base: tuple[int, int] | None) -> dict[str, Any]:
        """Format 1.2: a body with the keys of its base exchange's body (same order) as `$as` + what changed.

        A thread's requests repeat model, instructions, tools, reasoning, include, metadata ... every
        turn; only `input` (and whatever else changed) is written again.
        """
        if self._minor < 2 or base is None or any(key.startswith("$") for key in encoded):
            return encoded
        previous = self._bodies.get(base[0])
        if previous is None or list(previous) != list(encoded):
            return encoded
        changed = {k: v for k, v in encoded.items() if k == "input" or _exact(v) != _exact(previous[k])}
        return {AS: base[0], **changed}

    def _like_previous_response(self, exchange_id: int, response: dict[str, Any]) -> dict[str, Any]:
        """Format 1.3: a response with the keys of an earlier one (same order) as `$as` + what changed.

        Every response of a session repeats its model, status, tool choice, error, echoed instructions
        and tools ...; only its id, output and usage are new.
        """
        if self._minor < 3 or any(key.startswith("$") for key in response):
            return response
        keys = tuple(response)
        previous = self._responses.get(keys)
        self._new_response = keys, (exchange_id, response)  # a base only once its line is written
        if previous is None:
            return response
        base_id, base = previous
        changed = {k: v for k, v in response.items() if _exact(v) != _exact(base[k])}
        if len(changed) == len(response):
            return response
        return {AS: base_id, **changed}

    def _refer_values(self, body: dict[str, Any]) -> dict[str, Any]:
        """Format 1.3: a body's large top-level values (Codex's `client_metadata`, whose keys come
        in a new order every request) as blob references once they repeat (`_value_ref`)."""
        out: dict[str, Any] = {}
        for key, value in body.items():
            plain = isinstance(value, str) or (isinstance(value, list | dict) and REF not in value)
            out[key] = (self._value_ref(value) or value) if plain and key != "input" and value else value
        return out

    def _value_ref(self, value: Any) -> dict[str, Any] | None:
        """Format 1.3: a large header or body value as a blob reference once it repeats, else None.

        The first occurrence stays inline (a value seen once costs nothing extra); from the second on
        it is one blob, referenced with its own key order where the blob has another.
        """
        canonical = canonical_json(value)
        if len(canonical) < MIN_BLOB_CHARS:
            return None
        h = content_hash(canonical)
        if h not in self._stored and h not in self._new_blobs and h not in self._seen:
            self._seen[h] = None
            while len(self._seen) > SEEN_VALUES:
                del self._seen[next(iter(self._seen))]
            return None
        return ordered_ref(value, self._sink, self._orders.get)

    def _redact_sse(self, events: list[dict[str, Any]]) -> None:
        red = self._redactor
        # deltas are redacted as the text they assemble to: a key streamed in pieces is still a key
        datas = redact_events(red, [event.pop("data") for event in events])
        for event, data in zip(events, datas, strict=True):
            event["data"] = data
            if "wire" in event:  # comment lines are free text too
                event["wire"] = red.text(event["wire"])

    def _encode_sse(self, events: list[dict[str, Any]], view: dict[str, Any] | None) -> Any:
        """A redacted stream as stored: derived from the response (1.2) where that rebuilds exactly."""
        if self._minor < 1:  # 1.0 keeps no framing: only the events a client saw, in plain form
            events = [e for e in events if "wire" not in e or _dispatched(e["wire"])]
            for event in events:
                event.pop("wire", None)
        if self._minor >= 2:
            times = [event.pop("t_ms") for event in events]
            stream = derive_stream(events, view, literal=self._literal_sse)
            if stream is not None:
                steps = time_steps(times) if self._minor >= 3 else None
                timing: dict[str, Any] = {"t_ms": times} if steps is None else {STEPS: steps}
                h = self._sink_exact(stream)
                return {STREAM: h, **timing} if h is not None else {**stream, **timing}
            for event, t_ms in zip(events, times, strict=True):
                event["t_ms"] = t_ms
        return [self._literal_sse(event) for event in events]

    def _literal_sse(self, event: dict[str, Any]) -> dict[str, Any]:
        """An event stored as its data (format 1.1's `json` form where that is exact, else the text)."""
        form = dict(event)
        data = form.pop("data")
        as_json = encode_sse_data(data, self._sink, self._orders.get, allow_order=self._minor >= 1)
        form["json" if as_json is not None else "data"] = as_json if as_json is not None else data
        return form

    def _as_read(self, value: Any, h: str) -> Any:
        """`value` if blob `h` gives it back with the same key order, else a value nothing can match."""
        return value if self._orders.get(h) == ordered_hash(value) else _UNMATCHABLE

    def _sink_exact(self, value: Any) -> str | None:
        """Store `value` as a blob unless an equal blob with another key order is stored (then None)."""
        h = content_hash(canonical_json(value))
        if (h in self._stored or h in self._new_blobs) and self._orders.get(h) != ordered_hash(value):
            return None
        return self._sink(value)

    def _sink(self, value: Any) -> str:
        text = canonical_json(value)
        h = content_hash(text)
        if h not in self._stored and h not in self._new_blobs:
            self._new_blobs.add(h)
            self._orders[h] = ordered_hash(value)
            self._emit({"kind": KIND_BLOB, "h": h, "v": value})
        return h

    def _store_item(self, item: Any) -> str:
        raw = content_hash(canonical_json(item))
        stored = self._raw_to_stored.get(raw)
        if stored is None:
            stored = self._sink(self._redactor.body(item))
            self._raw_to_stored[raw] = stored
            self._new_raw.append(raw)
        return stored

    def _pick_base(self, hashes: list[str]) -> tuple[int, int] | None:
        best: tuple[int, int] | None = None
        if not hashes:
            return None
        for exchange_id, prev in reversed(self._recent):
            if not prev or prev[0] != hashes[0]:
                continue
            if len(prev) <= len(hashes) and hashes[: len(prev)] == prev:
                keep = len(prev)
            else:  # longest common prefix by bisection; slice compares run at C speed
                lo, hi = 1, min(len(prev), len(hashes))
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if hashes[:mid] == prev[:mid]:
                        lo = mid
                    else:
                        hi = mid - 1
                keep = lo
            if best is None or keep > best[1]:
                best = (exchange_id, keep)
            if keep == len(hashes):
                break
        return best

    def _decode_raw_body(self, exchange: Exchange) -> Exchange:
        raw = exchange.request_body
        if not isinstance(raw, bytes | bytearray):
            return exchange
        update: dict[str, Any] = {"request_size": exchange.request_size or len(raw), "request_body": None}
        try:
            update["request_body"] = loads(bytes(raw))
        except (ValueError, UnicodeDecodeError):
            text = bytes(raw[: MAX_TEXT_BODY * 4]).decode("utf-8", "replace")
            update["request_text"] = text[:MAX_TEXT_BODY]
        return exchange.model_copy(update=update)

    def _write_locked(self, exchange: Exchange) -> Exchange:
        exchange = self._decode_raw_body(exchange)
        red = self._redactor
        body = exchange.request_body
        line: dict[str, Any] = exchange.model_dump(
            exclude={"request_body", "request_headers", "response_headers", "response"}, exclude_defaults=True
        )
        line["id"] = exchange.id
        line["url"] = red.url(exchange.url)
        for key in ("request_text", "response_text", "response_raw"):
            if key in line and isinstance(line[key], str):
                line[key] = red.text(line[key])
        if "response_body" in line:
            line["response_body"] = red.body(line["response_body"])
        if "ws_frames" in line:
            # frames that are not turns (session updates, pings, errors) get the same JSON redaction
            texts = [frame["text"] for frame in line["ws_frames"] if frame.get("text")]
            redacted = iter(redact_events(red, texts))
            for frame in line["ws_frames"]:
                if frame.get("text"):
                    frame["text"] = next(redacted)
        if "error" in line:
            line["error"]["message"] = red.text(line["error"]["message"])

        value_ref = self._value_ref if self._minor >= 3 else None
        line["request_headers"] = encode_headers(red.headers(exchange.request_headers), self._sink, value_ref)
        line["response_headers"] = encode_headers(red.headers(exchange.response_headers), self._sink, value_ref)

        if isinstance(body, dict) and isinstance(body.get("input"), list):
            hashes = [self._store_item(item) for item in body["input"]]
            base = self._pick_base(hashes)
            redacted = red.body({k: v for k, v in body.items() if k != "input"})
            # key order kept; `input` is replaced by references in encode_body, never written raw
            ordered = {k: body["input"] if k == "input" else redacted[k] for k in body}
            encoded = encode_body(ordered, hashes, base, self._sink)
            line["request_body"] = self._like_base(encoded, base)
            if value_ref is not None:  # after `$as`: a value equal to its base's is not written at all
                line["request_body"] = self._refer_values(line["request_body"])
            self._recent.append((exchange.id, hashes))
            self._bodies[exchange.id] = encoded
            while len(self._bodies) > RECENT_INPUTS:
                del self._bodies[next(iter(self._bodies))]
        elif body is not None:
            line["request_body"] = red.body(body)

        if "sse" in line:  # before the response: the stub of a key a cut stream ends in is learnt here
            self._redact_sse(line["sse"])
        view: dict[str, Any] | None = None  # the response as a reader will resolve it
        if exchange.response is not None:
            response = dict(red.body(exchange.response))  # a copy: the caller's exchange stays as it is
            view = dict(response)
            output = response.get("output")
            if isinstance(output, list) and output:
                hashes = [self._sink(item) for item in output]
                response["output"] = {ITEMS: {"add": hashes}}
                view["output"] = [self._as_read(item, h) for item, h in zip(output, hashes, strict=True)]
            # the API echoes the request's instructions and tools in every response
            for key in ("instructions", "tools"):
                value = response.get(key)
                if (isinstance(value, str) and len(value) >= MIN_BLOB_CHARS) or (
                    isinstance(value, list) and value
                ):
                    response[key] = {REF: self._sink(value)}
                    view[key] = self._as_read(value, response[key][REF])
            line["response"] = self._like_previous_response(exchange.id, response)
        if "sse" in line:
            line["sse"] = self._encode_sse(line["sse"], view)
        if self._minor < 1:  # 1.0 had no JSON body layout
            line.pop("response_layout", None)
            line.pop("response_raw", None)

        self._emit({"kind": KIND_EXCHANGE, **line})
        return exchange

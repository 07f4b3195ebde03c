"""Following a recording while it is written: each `poll()` reads only the bytes appended since
the last one and returns the exchanges they complete.

A line without its newline yet is the writer mid-line: it is kept and read once complete, never
reported as damage. Lines are decoded exactly as `read_recording` decodes them (same header check,
same stored-part resolution), so a followed file and a loaded file give the same exchanges.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import RecordingError
from ..model import Exchange, RecordingHeader
from .codec import Decoder
from .format import KIND_BLOB, KIND_EXCHANGE, loads
from .reader import _check_header, _decode_exchange


class RecordingFollower:
    """Incremental reader of one growing recording file."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.header: RecordingHeader | None = None
        self.exchanges: list[Exchange] = []
        self.warnings: list[str] = []
        self._decoder = Decoder()
        self._offset = 0
        self._pending = b""
        self._line = 0

    @property
    def waiting_line(self) -> bool:
        """True while the last line has no newline yet (the writer is mid-line, or was killed)."""
        return bool(self._pending.strip())

    def poll(self) -> list[Exchange]:
        """Read what was appended; the new exchanges in file order. `RecordingError` when the file
        is gone, shrank (rewritten), or does not start like a recording."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            raise RecordingError(f"{self.path} was deleted while following it") from None
        if size < self._offset:
            raise RecordingError(f"{self.path} shrank while following it (rewritten?): open it again")
        if size == self._offset:
            return []
        with self.path.open("rb") as fh:
            fh.seek(self._offset)
            chunk = fh.read(size - self._offset)
        self._offset += len(chunk)
        data = self._pending + chunk
        *lines, self._pending = data.split(b"\n")
        new: list[Exchange] = []
        for raw in lines:
            self._line += 1
            if raw.strip():
                exchange = self._take(raw)
                if exchange is not None:
                    new.append(exchange)
        self.exchanges += new
        return new

    def _take(self, raw: bytes) -> Exchange | None:
        number = self._line
        try:
            obj = loads(raw)
        except (ValueError, UnicodeDecodeError):
            if self.header is None:
                raise RecordingError(
                    f"{self.path} is not a ctxscope recording (line {number} is not JSON)"
                ) from None
            self.warnings.append(f"line {number} is damaged (not JSON); skipped")
            return None
        if self.header is None:
            self.header = _check_header(self.path, obj)
            return None
        kind = obj.get("kind") if isinstance(obj, dict) else None
        if kind == KIND_BLOB:
            if isinstance(obj.get("h"), str):
                self._decoder.blobs[obj["h"]] = obj.get("v")
            else:
                self.warnings.append(f"line {number}: stored part without a hash; skipped")
        elif kind == KIND_EXCHANGE:
            return _decode_exchange(self._decoder, obj, number, self.warnings)
        else:
            self.warnings.append(f"line {number} has unknown kind {kind!r}; skipped")
        return None


__all__ = ["RecordingFollower"]

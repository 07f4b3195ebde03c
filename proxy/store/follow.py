"""Following a recording while it is written: each `poll()` reads only the bytes appended since
the last one and returns the exchanges they complete.

A line without its newline yet is the writer mid-line: it is kept and read once complete, never
reported as damage. Lines go through the decoder `read_recording` uses (`lines.LineDecoder`: the same
header check, surrogate repair and stored-part resolution), so a followed file and a loaded file give
the same exchanges and warnings.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import RecordingError
from ..model import Exchange, RecordingHeader
from .lines import LineDecoder


class RecordingFollower:
    """Incremental reader of one growing recording file."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.exchanges: list[Exchange] = []
        self._lines = LineDecoder(self.path)
        self._offset = 0
        self._pending = b""
        self._line = 0

    @property
    def header(self) -> RecordingHeader | None:
        """The recording's header, once its first line was read."""
        return self._lines.header

    @property
    def warnings(self) -> list[str]:
        """What was skipped or repaired so far, one line each (as `read_recording` says it)."""
        return self._lines.warnings

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
                exchange = self._lines.take(self._line, raw)
                if exchange is not None:
                    new.append(exchange)
        self.exchanges += new
        return new


__all__ = ["RecordingFollower"]

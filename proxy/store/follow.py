"""Following a recording while it is written: each `poll()` reads only the bytes appended since
the last one (or the next part of them) and returns the exchanges they complete.

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
from .offsets import complete_lines, line_waiting


class RecordingFollower:
    """Incremental reader of one growing recording file."""

    def __init__(self, path: Path | str, *, shared_inputs: bool = False) -> None:
        """`shared_inputs`: bodies' `input` as `SharedInput`s (see `Decoder`), for a reader whose
        analysis is the only one to look at the bodies."""
        self.path = Path(path)
        self.exchanges: list[Exchange] = []
        self._lines = LineDecoder(self.path, shared_inputs=shared_inputs)
        self._offset = 0
        """Where the next line starts: every byte before it is decoded."""
        self._size = 0
        """The file's size at the last poll."""
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
        return self.unread > 0 and line_waiting(self.path, self._offset, self._size)

    @property
    def offset(self) -> int:
        """Bytes of the file decoded so far (up to the start of the next line)."""
        return self._offset

    @property
    def unread(self) -> int:
        """Bytes the file held at the last poll that are not decoded yet (a partial read's rest, or
        a line the writer has not finished)."""
        return self._size - self._offset

    def poll(self, max_exchanges: int | None = None, max_bytes: int | None = None) -> list[Exchange]:
        """Read what was appended; the new exchanges in file order. `max_exchanges`: stop after that
        many, `max_bytes`: after the exchange that reaches that many bytes read (the rest is read
        by the next polls), so a large file is taken in parts: its first turns are shown before its
        last lines are read. The file is memory-mapped, never read whole.
        `RecordingError` when the file is gone, shrank (rewritten), or does not start like a recording."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            raise RecordingError(f"{self.path} was deleted while following it") from None
        if size < self._size:
            raise RecordingError(f"{self.path} shrank while following it (rewritten?): open it again")
        self._size = size
        if size == self._offset:
            return []
        new: list[Exchange] = []
        start = self._offset
        lines = complete_lines(self.path, start, size)
        for end, raw in lines:
            self._offset = end
            self._line += 1
            if raw.strip():
                exchange = self._lines.take(self._line, raw)
                if exchange is not None:
                    new.append(exchange)
                    if max_exchanges is not None and len(new) >= max_exchanges:
                        break
                    if max_bytes is not None and end - start >= max_bytes:
                        break
        lines.close()  # the map goes now, not when the generator is collected
        self.exchanges += new
        return new


__all__ = ["RecordingFollower"]

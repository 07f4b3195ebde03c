"""Reading a recording: typed exchanges with every stored part resolved.

A reader must never lose what a file holds: a torn last line (a writer killed mid-write) is skipped
with a warning, a damaged line elsewhere likewise, and everything complete still loads.
"""

from __future__ import annotations

import io
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import RecordingError
from ..files import input_stat
from ..model import Exchange, RecordingHeader
from .embedded import is_html, recording_bytes
from .lines import LineDecoder

__all__ = ["Recording", "read_recording", "iter_lines"]


@dataclass
class Recording:
    """One loaded recording. `exchanges` are sorted by id; bodies are shared read-only objects."""

    path: Path
    header: RecordingHeader
    exchanges: list[Exchange]
    warnings: list[str] = field(default_factory=list)
    blob_hashes: set[str] = field(default_factory=set)
    input_hashes: Mapping[int, list[str]] = field(default_factory=dict)
    """Each model request's input as stored hashes (equal hash = equal item)."""

    def model_requests(self) -> list[Exchange]:
        """Exchanges that carry a Responses request body (HTTP or WebSocket)."""
        return [e for e in self.exchanges if e.is_model_request]


def iter_lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, raw line, is_last) for every non-empty line (of the embedded recording, for an
    HTML report)."""
    with path.open("rb") as fh:
        if is_html(fh.read(64)):
            lines: Iterable[bytes] = io.BytesIO(recording_bytes(path))
        else:
            fh.seek(0)
            lines = fh
        previous: tuple[int, bytes] | None = None
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            if previous is not None:
                yield previous[0], previous[1], False
            previous = (number, raw)
        if previous is not None:
            yield previous[0], previous[1], True


def read_recording(path: Path | str, *, shared_inputs: bool = False) -> Recording:
    """Load a recording; raises `RecordingError` with a one-line message if it is not one.

    `shared_inputs`: each body's `input` a `SharedInput` on its base's storage rather than a real list
    (`InputList`): a long session's inputs then cost what was added, not turns × context. For a
    caller that only reads the bodies (no JSON encoder is handed one without `list()`)."""
    path = Path(path)
    info = input_stat(path)
    if info is None:
        raise RecordingError(f"{path} does not exist")
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise RecordingError(f"{path} is a directory, not a recording file")
    if not stat.S_ISREG(mode):  # /dev/zero, a FIFO: a read that may never end
        raise RecordingError(f"{path} is not a regular file; give a recording file")
    lines = LineDecoder(path, shared_inputs=shared_inputs)
    exchanges: list[Exchange] = []
    for number, raw, is_last in iter_lines(path):
        exchange = lines.take(number, raw, is_last=is_last)
        if exchange is not None:
            exchanges.append(exchange)
    if lines.header is None:
        raise RecordingError(f"{path} is empty: not a ctxscope recording")
    exchanges.sort(key=lambda e: e.id)
    return Recording(
        path=path,
        header=lines.header,
        exchanges=exchanges,
        warnings=lines.warnings,
        blob_hashes=set(lines.decoder.blobs),
        input_hashes=lines.decoder.input_hashes,
    )

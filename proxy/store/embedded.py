"""A recording carried inside a self-contained HTML report (`ctxscope report`).

The report holds the whole recording, gzip-compressed and base64-encoded, in one
`<script type="application/x-ctxscope-recording+gzip" id="ctxscope-recording">` block, so the file a
person looks at in a browser is also the cassette a test replays: every reader of recordings takes
an HTML report as it takes the `.jsonl` (`read_recording` → `recording_lines`).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import re
import zlib
from pathlib import Path

from ..errors import RecordingError

__all__ = ["EMBED_ID", "EMBED_TYPE", "embed_block", "is_html", "recording_bytes"]

EMBED_TYPE = "application/x-ctxscope-recording+gzip"
EMBED_ID = "ctxscope-recording"
MAX_RECORDING_BYTES = 2 << 30
"""A decompressed recording larger than 2 GiB is refused (a corrupt or hostile block)."""

_BLOCK = re.compile(
    rb'<script[^>]*\bid="' + EMBED_ID.encode() + rb'"[^>]*>\s*([A-Za-z0-9+/=\s]*?)\s*</script>', re.S
)


def is_html(head: bytes) -> bool:
    """True when a file's first bytes are an HTML document (a report, not a JSON-lines recording)."""
    start = head.lstrip()[:64].lower()
    return start.startswith(b"<!doctype html") or start.startswith(b"<html")


def embed_block(recording: bytes) -> str:
    """The `<script>` block that carries `recording` (its bytes, exactly) in a report."""
    packed = base64.b64encode(gzip.compress(recording, compresslevel=9, mtime=0)).decode("ascii")
    lines = "\n".join(packed[i : i + 120] for i in range(0, len(packed), 120))
    return f'<script type="{EMBED_TYPE}" id="{EMBED_ID}">\n{lines}\n</script>'


def recording_bytes(path: Path) -> bytes:
    """The recording an HTML report carries, byte for byte; a one-line error when it has none."""
    match = _BLOCK.search(path.read_bytes())
    if match is None:
        raise RecordingError(
            f"{path} is an HTML file without an embedded ctxscope recording; give a report made by "
            "`ctxscope report` or a .jsonl recording"
        )
    try:
        packed = base64.b64decode(re.sub(rb"\s+", b"", match.group(1)), validate=True)
        inflater = zlib.decompressobj(wbits=31)
        data = inflater.decompress(packed, MAX_RECORDING_BYTES)
    except (binascii.Error, zlib.error) as err:
        raise RecordingError(f"{path}: its embedded recording is damaged ({err})") from None
    if inflater.unconsumed_tail:
        raise RecordingError(f"{path}: its embedded recording is larger than 2 GiB; refused")
    return data

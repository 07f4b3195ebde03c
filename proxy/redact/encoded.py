"""Base64 blobs that decode to text holding a credential (a Kubernetes secret, a docker `auth`, a
base64-encoded JSON key file): the whole blob goes, since any piece of it decodes to a piece of the key.

Only runs of a bounded size are decoded (`MAX_BLOB` characters), and only those that decode to UTF-8
text: a reasoning `encrypted_content` blob or an image decodes to bytes that are not text and stays.
What the decoded text is searched with is the caller's (`Redactor`'s) own scan, so every rule applies.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator

__all__ = ["MAX_BLOB", "decoded_text", "find_encoded"]

MAX_BLOB = 65_536
"""Longer runs are not decoded: a credential file is far smaller, and images and blobs are larger."""
_MIN_BLOB = 16
_RUN_RE = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/_=-])")


# bytes.translate maps every base64 character to `a` and everything else to a space, at C speed: the
# runs worth decoding are where 16 `a`s stand in a row, and most text has none.
_B64_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
_TO_RUNS = bytes(ord("a") if bytes([i]) in _B64_BYTES else ord(" ") for i in range(256))
_LONG_RUN = b"a" * _MIN_BLOB


def _runs(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each base64 run of 16 or more characters (with its `=` padding)."""
    if not text.isascii():  # byte offsets are not character offsets: the pattern finds them instead
        if _LONG_RUN in text.encode("utf-8", "surrogatepass").translate(_TO_RUNS):
            yield from (match.span() for match in _RUN_RE.finditer(text))
        return
    runs = text.encode("ascii").translate(_TO_RUNS)
    at = runs.find(_LONG_RUN)
    while at >= 0:
        start = runs.rfind(b" ", 0, at) + 1
        end = runs.find(b" ", at)
        end = len(text) if end < 0 else end
        padding = end
        while end < len(text) and end - padding < 2 and text[end] == "=":
            end += 1
        yield start, end
        at = runs.find(_LONG_RUN, end)


def decoded_text(run: str) -> str | None:
    """The text a base64 run decodes to, or None when it is not base64 of readable UTF-8 text."""
    body = run.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if "-" in body or "_" in body else base64.b64decode(padded)
    except (binascii.Error, ValueError):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c in "\r\n\t" for c in text)
    return text if printable >= 0.95 * len(text) else None


def find_encoded(text: str, holds_secret: Callable[[str], bool]) -> Iterator[tuple[int, int]]:
    """Spans of base64 runs in `text` whose decoded text `holds_secret` says holds a credential."""
    for start, end in _runs(text):
        run = text[start:end]
        if len(run) > MAX_BLOB or len(run.rstrip("=")) % 4 == 1:
            continue
        decoded = decoded_text(run)
        if decoded is not None and holds_secret(decoded):
            yield start, end

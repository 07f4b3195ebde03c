"""Checksums vendors build into their tokens, checked where a table row names one.

GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, since 2021) and npm (`npm_`) end a token in six base62
characters that encode the CRC32 of the random part before them (github.blog, "Behind GitHub's new
authentication token formats"; npm's announcement of its token format). A token whose tail checks out
is a real token whatever else it looks like; one whose tail fails is still redacted when its shape is
random-looking (`shapes.py`): a check differing from the vendor's in a detail must not let keys through.
"""

from __future__ import annotations

import zlib

__all__ = ["BASE62", "base62_crc32", "crc32_tail_ok"]

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_TAIL = 6


def base62_crc32(data: str) -> str:
    """The six-character base62 CRC32 of `data`, as the vendors append it (left-padded with `0`)."""
    number = zlib.crc32(data.encode("ascii", "replace"))
    digits = []
    while number:
        number, rest = divmod(number, 62)
        digits.append(BASE62[rest])
    return "".join(reversed(digits)).rjust(_TAIL, "0")


def crc32_tail_ok(token: str) -> bool:
    """`prefix_` + random part + base62 CRC32 of the random part (GitHub, npm)."""
    _, sep, body = token.partition("_")
    if not sep or len(body) <= _TAIL:
        return False
    return base62_crc32(body[:-_TAIL]) == body[-_TAIL:]

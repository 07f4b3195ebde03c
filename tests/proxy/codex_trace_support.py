"""Changing a real Codex trace bundle in place, as if Codex had written otherwise (both layouts)."""

from __future__ import annotations

import struct
from pathlib import Path

import zstandard

__all__ = ["plant"]


def plant(bundle: Path, old: str, new: str) -> None:
    """Replace `old` with `new` in the bundle's payloads (both layouts), as if Codex had sent otherwise."""
    for file in (bundle / "payloads").iterdir():
        if file.suffix == ".json":
            file.write_text(file.read_text().replace(old, new))
            continue
        data = zstandard.ZstdDecompressor().stream_reader(file.read_bytes(), read_across_frames=True).read()
        out, at = bytearray(), 0
        while at < len(data):
            id_len, json_len = struct.unpack_from("<HQ", data, at)
            rid = data[at + 10 : at + 10 + id_len]
            value = data[at + 10 + id_len : at + 10 + id_len + json_len].replace(old.encode(), new.encode())
            out += struct.pack("<HQ", id_len, len(value)) + rid + value
            at += 10 + id_len + json_len
        file.write_bytes(zstandard.ZstdCompressor().compress(bytes(out)))

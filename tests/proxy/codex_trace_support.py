"""Changing a real Codex trace bundle in place, as if Codex had written otherwise (both layouts)."""

from __future__ import annotations

from pathlib import Path

import zstandard

from ctxscope.proxy.codex_trace.bundle import RECORD_PREFIX, decompress_shard, shard_records

__all__ = ["plant"]


def plant(bundle: Path, old: str, new: str) -> None:
    """Replace `old` with `new` in the bundle's payloads (both layouts), as if Codex had sent otherwise."""
    for file in (bundle / "payloads").iterdir():
        if file.suffix == ".json":
            file.write_text(file.read_text().replace(old, new))
            continue
        records, _ = shard_records(decompress_shard(file.read_bytes()))
        out = bytearray()
        for rid, value in records:
            changed = value.replace(old.encode(), new.encode())
            out += RECORD_PREFIX.pack(len(rid), len(changed)) + rid + changed
        file.write_bytes(zstandard.ZstdCompressor().compress(bytes(out)))

"""One Codex rollout-trace bundle read from disk: its manifest, its events and its raw payloads.

Codex writes a bundle `trace-<trace id>-<rollout id>/` when `CODEX_ROLLOUT_TRACE_ROOT` is set
(docs/codex-trace.md). Two layouts were observed: schema_version 2 (Codex 0.169.0) keeps each payload
as its own `payloads/N.json` and events refer to it by `path`; schema_version 3 (Codex 0.171.0) packs
them into zstd shards `payloads/NNNNNN.zst` of records (a 2-byte id length and an 8-byte JSON length,
both little-endian, then the id `raw_payload:N`, then the JSON) and events refer to them by `shard`.
Other versions are refused until they are observed.

Bad input loses only what it spoils: a torn last event line, a missing payload file or a shard that
does not decode is one line in `problems`, and every other event and payload is still read.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

from ..errors import CtxscopeError

__all__ = [
    "RECORD_PREFIX",
    "SCHEMA_VERSIONS",
    "Bundle",
    "TraceError",
    "decompress_shard",
    "find_bundles",
    "read_bundle",
]

SCHEMA_VERSIONS = (2, 3)
"""The manifest versions observed (docs/codex-trace.md); any other is refused in one line."""

RECORD_PREFIX = struct.Struct("<HQ")
"""A schema-3 shard record's prefix: the id's length, then the JSON's length (little-endian)."""


class TraceError(CtxscopeError):
    """A path that is not a readable Codex trace bundle; the message is one line."""


@dataclass
class Bundle:
    """A bundle's manifest and events, with its payloads resolved on demand."""

    path: Path
    manifest: dict[str, Any]
    events: list[dict[str, Any]]
    problems: list[str] = field(default_factory=list)
    """One line for each thing that could not be read (the rest is read)."""
    _shards: dict[int, dict[str, Any] | None] = field(default_factory=dict, repr=False)

    @property
    def schema_version(self) -> int:
        return int(self.manifest["schema_version"])

    @property
    def completed(self) -> bool:
        """True when Codex finished writing it (its last event is `recording_completed`)."""
        return bool(self.events) and self.events[-1].get("payload", {}).get("type") == "recording_completed"

    def payload(self, ref: Any) -> Any:
        """The JSON value an event's payload reference names, or None (noted once) if it cannot be read."""
        if not isinstance(ref, dict) or "raw_payload_id" not in ref:
            return None
        rid = ref["raw_payload_id"]
        if "shard" in ref:
            records = self._shard(int(ref["shard"]))
            if records is None:
                return None
            if rid not in records:
                self._note(f"{self.path.name}: {rid} is not in shard {ref['shard']} (cut mid-write?)")
            return records.get(rid)
        if "path" in ref:
            file = self.path / str(ref["path"])
            try:
                return json.loads(file.read_bytes())
            except (OSError, ValueError) as err:
                self._note(f"{self.path.name}: payload {ref['path']} cannot be read: {_reason(err)}")
                return None
        return None

    def _shard(self, number: int) -> dict[str, Any] | None:
        if number not in self._shards:
            payloads = self.path / str(self.manifest.get("payloads_dir", "payloads"))
            file = payloads / f"{number:06d}.zst"
            try:
                self._shards[number] = _records(file)
            except (OSError, zstandard.ZstdError, ValueError) as err:
                self._note(f"{self.path.name}: shard {file.name} does not decode: {_reason(err)}")
                self._shards[number] = None
        return self._shards[number]

    def _note(self, line: str) -> None:
        if line not in self.problems:
            self.problems.append(line)


def _reason(err: BaseException) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0]


def shard_records(data: bytes) -> tuple[list[tuple[bytes, bytes]], bool]:
    """A decompressed shard's records as (id, JSON) bytes, and whether it ends in a record cut short."""
    records: list[tuple[bytes, bytes]] = []
    at = 0
    while at + RECORD_PREFIX.size <= len(data):
        id_len, json_len = RECORD_PREFIX.unpack_from(data, at)
        start = at + RECORD_PREFIX.size
        end = start + id_len + json_len
        if end > len(data):
            return records, True
        records.append((data[start : start + id_len], data[start + id_len : end]))
        at = end
    return records, at != len(data)


def _records(file: Path) -> dict[str, Any]:
    """The records of one zstd shard; a shard cut mid-write keeps the records before the cut."""
    records, _ = shard_records(decompress_shard(file.read_bytes()))
    return {rid.decode("utf-8"): json.loads(value) for rid, value in records}


def decompress_shard(raw: bytes) -> bytes:
    """All the frames of a zstd stream; a frame cut short gives what was decoded before the cut."""
    reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    chunks: list[bytes] = []
    try:
        while chunk := reader.read(1 << 20):
            chunks.append(chunk)
    except zstandard.ZstdError:
        if not chunks:
            raise
    return b"".join(chunks)


def read_bundle(path: Path) -> Bundle:
    """The bundle at `path` (a `trace-…` directory); `TraceError` if it is not one Codex wrote as observed."""
    manifest_file = path / "manifest.json"
    try:
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TraceError(f"{path}: not a Codex trace bundle (no manifest.json)") from None
    except (OSError, ValueError) as err:
        raise TraceError(f"{path}: manifest.json cannot be read: {_reason(err)}") from None
    version = manifest.get("schema_version") if isinstance(manifest, dict) else None
    if version not in SCHEMA_VERSIONS:
        known = " and ".join(str(v) for v in SCHEMA_VERSIONS)
        raise TraceError(
            f"{path.name}: trace schema_version {version!r} is not one ctxscope has observed ({known}); "
            "skipped (upgrade ctxscope)"
        )
    bundle = Bundle(path, manifest, [])
    log = path / str(manifest.get("raw_event_log", "trace.jsonl"))
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as err:
        raise TraceError(f"{path.name}: {log.name} cannot be read: {_reason(err)}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            bundle._note(f"{path.name}: {log.name} line {number} is torn (cut mid-write); skipped")
            continue
        if isinstance(event, dict) and isinstance(event.get("payload"), dict):
            bundle.events.append(event)
    if not bundle.completed:
        bundle._note(f"{path.name}: the trace ends before recording_completed (cut mid-write?); read what is there")
    return bundle


def find_bundles(paths: list[Path]) -> tuple[list[Path], list[str]]:
    """The bundle directories `paths` name (a bundle, or a directory of them), and one line per path that holds none."""
    found: list[Path] = []
    problems: list[str] = []
    for path in paths:
        if (path / "manifest.json").exists():
            found.append(path)
            continue
        inner = sorted(p for p in path.glob("*/manifest.json")) if path.is_dir() else []
        if inner:
            found.extend(p.parent for p in inner)
        else:
            problems.append(f"{path}: no Codex trace bundle here (a trace-… directory holding manifest.json)")
    return found, problems

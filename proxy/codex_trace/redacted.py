"""A Codex trace bundle copied with every secret replaced by the recording's own placeholders.

A bundle holds what Codex saw unredacted: tool output, the environment, credentials a command printed.
`ctxscope run --keep-trace DIR` keeps the run's bundles, so they are written to DIR only through this:
the event log line by line and each payload (a `payloads/N.json` file in schema_version 2, each record
of a zstd shard in schema_version 3, its length prefix rewritten) redacted with the redactor the run's
recording was written with, so a secret has the same placeholder in the kept trace as in the recording.
A line or record that cannot be read is left out (and said), never copied as it was.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import zstandard

from ..redact.redactor import Redactor
from .bundle import RECORD_PREFIX, decompress_shard, shard_records

__all__ = ["write_redacted_bundle"]


def _dump(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _redacted_records(data: bytes, redactor: Redactor) -> tuple[bytes, bool]:
    """A decompressed shard with each record's JSON redacted; whether a record cut short was left out."""
    records, cut = shard_records(data)
    out = bytearray()
    for rid, value in records:
        redacted = _dump(redactor.body(json.loads(value)))
        out += RECORD_PREFIX.pack(len(rid), len(redacted)) + rid + redacted
    return bytes(out), cut


def write_redacted_bundle(bundle: Path, dest: Path, redactor: Redactor) -> list[str]:
    """Write `bundle` redacted to `dest` (a new directory, 0700); one line per thing left out."""
    problems: list[str] = []
    dest.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(dest, 0o700)
    for file in sorted(bundle.rglob("*")):
        if file.is_dir():
            continue
        target = dest / file.relative_to(bundle)
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        name = file.relative_to(bundle)
        try:
            if file.suffix == ".zst":
                data, cut = _redacted_records(decompress_shard(file.read_bytes()), redactor)
                if cut:
                    problems.append(f"{bundle.name}: {name} ends in a cut record; left out of the kept copy")
                target.write_bytes(zstandard.ZstdCompressor().compress(data))
            elif file.suffix == ".jsonl":
                lines = []
                for number, line in enumerate(file.read_text("utf-8", "replace").splitlines(), start=1):
                    try:
                        lines.append(_dump(redactor.body(json.loads(line))).decode("utf-8"))
                    except ValueError:
                        problems.append(f"{bundle.name}: {name} line {number} is torn; left out of the kept copy")
                target.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
            elif file.suffix == ".json":
                target.write_bytes(_dump(redactor.body(json.loads(file.read_bytes()))))
            else:
                problems.append(f"{bundle.name}: {name} is not a file Codex was seen to write; left out")
        except (OSError, ValueError, zstandard.ZstdError) as err:
            problems.append(f"{bundle.name}: {name} cannot be read ({type(err).__name__}); left out of the kept copy")
    return problems

"""Which recording files there are, and whether the index holds each as it is, without reading any.

A file whose size, mtime (in nanoseconds) and inode are what the index's `recordings` table holds
is unchanged. `up_to_date` asks that of every file at once on a read-only connection. Faster still,
`write_snapshot` leaves beside the database (`DB.files`, owner-only) the stat facts of every indexed
file together with the database file's own: while the database file is exactly as it was (nothing
wrote to it since), `snapshot_up_to_date` answers from that snapshot, so a re-index with nothing
changed stats the files and imports neither DuckDB nor typer nor the analysis. Opening DuckDB costs
about half its import again; the snapshot is a copy of the `recordings` table's stat columns, never
a second account: any doubt (another schema, a write to the database, a missing or foreign file)
and the database itself is asked.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ctxscope.inspector.index._duckdb import duckdb

__all__ = [
    "SCHEMA_VERSION",
    "FileFacts",
    "Known",
    "Stat",
    "counts",
    "known_files",
    "recording_files",
    "same_stat",
    "snapshot_up_to_date",
    "up_to_date",
    "write_snapshot",
]

SCHEMA_VERSION = "4"  # 3: turns.cost_usd, turns.cache_write_tokens; 4: agents, turns.agent
"""Bumped when a column changes; an index built with another version is rebuilt from the files."""

@dataclass(frozen=True)
class FileFacts:
    """What the index keeps about a file to know when it changed."""

    recording: str
    """The recording's id (sha256 of its header line)."""
    name: str
    """Its path relative to the folder indexed."""
    path: str
    hash: str
    size: int
    mtime_ns: int
    inode: int


Known = tuple[str, int, int, int, str]
"""What the index holds of a file: (recording, size, mtime_ns, inode, hash)."""
Stat = tuple[int, int, int]
"""A file's (size, mtime_ns, inode): when all three are as they were, the file is unchanged."""


def _jsonl_under(root: str, prefix: str = "") -> list[tuple[str, str]]:
    """(path, name relative to the search root) of every `*.jsonl` file beneath `root`, in name order
    (as `Path.rglob` finds them, without its per-path objects: a re-index of thousands of files stats
    each one once). Symbolic links to folders are not followed (no cycles)."""
    found: list[tuple[str, str]] = []
    with os.scandir(root) as entries:
        ordered = sorted(entries, key=lambda e: e.name)
    for entry in ordered:
        name = prefix + entry.name
        if entry.is_dir(follow_symlinks=False):
            found += _jsonl_under(entry.path, name + "/")
        elif entry.name.endswith(".jsonl") and entry.is_file():
            found.append((entry.path, name))
    return found


def recording_files(paths: Iterable[Path]) -> tuple[list[tuple[str, str]], list[Path], list[Path]]:
    """((file's path, its name relative to the folder it was found in), folders searched, named files
    that do not exist)."""
    files: dict[str, str] = {}
    roots: list[Path] = []
    missing: list[Path] = []
    for path in paths:
        resolved = path.expanduser().resolve()
        if resolved.is_dir():
            roots.append(resolved)
            for found, name in _jsonl_under(str(resolved)):
                files.setdefault(found, name)
        elif resolved.is_file():
            files.setdefault(str(resolved), resolved.name)
        else:
            missing.append(resolved)
    return list(files.items()), roots, missing


def same_stat(known: Stat | None, st: os.stat_result) -> bool:
    """The file is as the index holds it (size, mtime in nanoseconds, inode): unchanged, not read."""
    return known == (st.st_size, st.st_mtime_ns, st.st_ino)


def known_files(con: Any) -> dict[str, Known]:
    """Path → (recording, size, mtime_ns, inode, hash) of every indexed file."""
    return {
        str(r[0]): (str(r[1]), int(r[2]), int(r[3]), int(r[4]), str(r[5]))
        for r in con.execute("SELECT path, recording, size, mtime_ns, inode, hash FROM recordings").fetchall()
    }


def _unchanged(paths: Iterable[Path], known: dict[str, Stat]) -> int | None:
    """How many files under `paths` there are, when each is as `known` holds it and no file `known`
    holds under a folder searched is gone (else None: a build has something to do)."""
    files, roots, missing = recording_files(paths)
    if missing:
        return None  # a named file that is gone: its rows go, or it is an error
    left = dict(known)
    for where, _ in files:
        try:
            if not same_stat(left.pop(where, None), os.stat(where)):
                return None
        except OSError:  # gone since it was found: the build tells
            return None
    if any(any(Path(where).is_relative_to(root) for root in roots) for where in left):
        return None  # an indexed file under a folder searched is gone
    return len(files)


def up_to_date(con: Any, paths: Iterable[Path], *, with_text: bool = False) -> int | None:
    """How many files a build would find unchanged, when it would change nothing (every file under
    `paths` as the index holds it, none gone, the same schema and `with_text`); found by reading only
    (`con` may be read-only; no file is opened). None when a build has something to do."""
    try:
        meta = dict(con.execute("SELECT key, value FROM index_meta").fetchall())
        if meta.get("schema") != SCHEMA_VERSION or meta.get("with_text") != ("1" if with_text else "0"):
            return None
        known = known_files(con)
    except duckdb().Error:  # not an index of this version (a table missing): the build says what
        return None
    return _unchanged(paths, {where: facts[1:4] for where, facts in known.items()})


def _snapshot_path(db: Path) -> Path:
    return db.with_name(db.name + ".files")


def _stat(path: Path) -> Stat | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def write_snapshot(db: Path, con: Any, *, with_text: bool) -> Callable[[], None]:
    """Read from `con` what `snapshot_up_to_date` needs; the returned call, made once `con` is closed,
    writes it beside `db` (`DB.files`, owner-only) with the database file's own stat facts."""
    known = {where: list(facts[1:4]) for where, facts in known_files(con).items()}
    recordings, turns = counts(con)

    def write() -> None:
        index = _stat(db)
        target = _snapshot_path(db)
        if index is None or db.with_name(db.name + ".wal").exists():
            target.unlink(missing_ok=True)  # not settled: the next run asks the database
            return
        data = {
            "schema": SCHEMA_VERSION,
            "with_text": with_text,
            "index": list(index),
            "recordings": recordings,
            "turns": turns,
            "files": known,
        }
        import orjson  # 0.6 ms for 3,000 files against json.dump's 19 ms (every run that opens the index writes it)

        scratch = target.with_name(target.name + ".tmp")
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(orjson.dumps(data))
        os.replace(scratch, target)

    return write


def snapshot_up_to_date(
    db: Path, paths: Iterable[Path], *, with_text: bool
) -> tuple[int, int, int] | Literal[False] | None:
    """(files unchanged, recordings, turns) when a build would change nothing, told by the snapshot
    `write_snapshot` left beside `db` (valid only while the database file is as it was then: any
    write to it, by ctxscope or by DuckDB itself, changes its size, mtime or inode); False when the
    snapshot is valid and a build has something to do; None when there is no valid snapshot."""
    try:
        data = json.loads(_snapshot_path(db).read_bytes())
        index = tuple(data["index"])
        if data["schema"] != SCHEMA_VERSION or data["with_text"] is not with_text or index != _stat(db):
            return None
        known = {str(where): (int(a), int(b), int(c)) for where, (a, b, c) in data["files"].items()}
        recordings, turns = int(data["recordings"]), int(data["turns"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # none, or not one this version wrote: the database decides
    unchanged = _unchanged(paths, known)
    return False if unchanged is None else (unchanged, recordings, turns)


def counts(con: Any) -> tuple[int, int]:
    """(recordings, turns) in the index."""
    row = con.execute("SELECT (SELECT count(*) FROM recordings), (SELECT count(*) FROM turns)").fetchone()
    return int(row[0]), int(row[1])

"""Build the index incrementally: new recordings are added, changed ones updated turn by turn,
removed ones deleted, unchanged ones skipped.

A file whose size and mtime are what the index holds is unchanged without being read; otherwise its
sha256 decides (a file touched but not changed only gets its mtime updated). A changed file is
analysed again whole (the analysis of a turn depends on the turns before it) and, table by table,
only the turns whose rows differ are replaced: a recording that grew by appending adds only its
new turns' rows. A damaged or foreign file is skipped with one line naming it; the rest is indexed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxscope.inspector.index._duckdb import connect
from ctxscope.inspector.index.rows import FileFacts, Row, Rows, recording_rows
from ctxscope.inspector.index.schema import TABLES, TURN_TABLES, create_sql
from ctxscope.proxy.errors import ConfigError, CtxscopeError

__all__ = ["BuildStats", "build_index", "ensure_schema", "insert_rows", "recording_files"]

_META = "CREATE TABLE IF NOT EXISTS index_meta (key VARCHAR PRIMARY KEY, value VARCHAR)"


@dataclass
class BuildStats:
    """What one `ctxscope index` run did."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[str] = field(default_factory=list)
    """One line per file that was not indexed, naming it and why."""
    turns_added: int = 0
    """Turn rows inserted (new turns, and turns of a changed recording whose rows changed)."""
    turns_deleted: int = 0
    rows_inserted: Counter[str] = field(default_factory=Counter)
    rows_updated: Counter[str] = field(default_factory=Counter)
    """Rows changed in place (an item a later turn still holds gets its new `last_turn`)."""


def ensure_schema(con: Any) -> None:
    """Create the tables that do not exist yet."""
    for table in TABLES.values():
        con.execute(create_sql(table))
    con.execute(_META)


def insert_rows(con: Any, table: str, rows: list[Row]) -> None:
    """Insert `rows` into `table` in one statement: one list parameter per column, unnested."""
    if not rows:
        return
    spec = TABLES[table]
    columns = list(zip(*rows, strict=True))
    selects = ", ".join(f"unnest(${i + 1}::{c.type}[])" for i, c in enumerate(spec.columns))
    con.execute(f"INSERT INTO {table} SELECT {selects}", [list(col) for col in columns])


def recording_files(paths: Iterable[Path]) -> tuple[list[Path], list[Path], list[Path]]:
    """(files to index, folders they were found in, named files that do not exist)."""
    files: list[Path] = []
    roots: list[Path] = []
    missing: list[Path] = []
    for path in paths:
        resolved = path.expanduser().resolve()
        if resolved.is_dir():
            roots.append(resolved)
            files += sorted(p for p in resolved.rglob("*.jsonl") if p.is_file())
        elif resolved.is_file():
            files.append(resolved)
        else:
            missing.append(resolved)
    return list(dict.fromkeys(files)), roots, missing


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _delete_recording(con: Any, rec: str) -> None:
    for table in TABLES:
        con.execute(f"DELETE FROM {table} WHERE recording = ?", [rec])


def _by_turn(rows: Iterable[Row], at: int) -> dict[int, Counter[Row]]:
    groups: dict[int, Counter[Row]] = {}
    for row in rows:
        groups.setdefault(row[at], Counter())[row] += 1
    return groups


_ITEM_NAMES = TABLES["items"].names
_LAST = _ITEM_NAMES.index("last_turn")
_POSITION, _PART = _ITEM_NAMES.index("position"), _ITEM_NAMES.index("part")


def _without_last(group: Counter[Row]) -> Counter[Row]:
    return Counter({(*row[:_LAST], *row[_LAST + 1 :]): n for row, n in group.items()})


def _extend_items(
    con: Any, rec: str, old: dict[int, Counter[Row]], fresh: dict[int, Counter[Row]], stats: BuildStats
) -> None:
    """Items still held by a later turn only get a new `last_turn` (updated in place, in `old` too),
    so an append inserts the new turns' items and rewrites none of the earlier ones."""
    updates: list[tuple[int, int, int | None, int]] = []
    for turn, group in old.items():
        new = fresh.get(turn)
        if new is None or new == group or _without_last(new) != _without_last(group):
            continue
        updates += [(turn, row[_POSITION], row[_PART], row[_LAST]) for row in new]
        old[turn] = new
    if not updates:
        return
    turns, positions, parts, lasts = (list(col) for col in zip(*updates, strict=True))
    con.execute(
        "UPDATE items SET last_turn = u.last_turn FROM (SELECT unnest($1::INTEGER[]) AS turn, "
        "unnest($2::INTEGER[]) AS position, unnest($3::INTEGER[]) AS part, "
        "unnest($4::INTEGER[]) AS last_turn) u WHERE items.recording = $5 AND items.turn = u.turn "
        "AND items.position = u.position AND items.part IS NOT DISTINCT FROM u.part",
        [turns, positions, parts, lasts, rec],
    )
    stats.rows_updated["items"] += len(updates)


def _store(con: Any, rec: str, rows: Rows, known: bool, stats: BuildStats) -> None:
    """Write one recording's rows; for a known recording replace only the turns that changed."""
    for table, new in rows.items():
        if not known or table not in TURN_TABLES:
            if known:
                con.execute(f"DELETE FROM {table} WHERE recording = ?", [rec])
            insert_rows(con, table, new)
            stats.rows_inserted[table] += len(new)
            continue
        names = TABLES[table].names
        at = names.index("turn")
        cols = ", ".join(f'"{n}"' for n in names)
        old = _by_turn(con.execute(f"SELECT {cols} FROM {table} WHERE recording = ?", [rec]).fetchall(), at)
        fresh = _by_turn(new, at)
        if table == "items":
            _extend_items(con, rec, old, fresh, stats)
        stale = sorted(t for t in old if old[t] != fresh.get(t))
        if stale:
            marks = ", ".join("?" for _ in stale)
            con.execute(f"DELETE FROM {table} WHERE recording = ? AND turn IN ({marks})", [rec, *stale])
        changed = [row for t, group in fresh.items() if group != old.get(t) for row in group.elements()]
        insert_rows(con, table, changed)
        stats.rows_inserted[table] += len(changed)
        if table == "turns":
            stats.turns_deleted += len(stale)
            stats.turns_added += len(changed)
    if not known:
        stats.turns_added += len(rows["turns"])


def _meta(con: Any, key: str) -> str | None:
    row = con.execute("SELECT value FROM index_meta WHERE key = ?", [key]).fetchone()
    return None if row is None else str(row[0])


def build_index(
    db: Path | None,
    paths: Iterable[Path],
    *,
    with_text: bool = False,
    con: Any = None,
    progress: Callable[[str], None] | None = None,
) -> BuildStats:
    """Index the recordings under `paths` into the database `db` (or the open connection `con`)."""
    from ctxscope.inspector.analysis.analyse import analyse_recording

    files, roots, missing = recording_files(paths)
    own = con is None
    if own:
        if db is not None:
            db.parent.mkdir(parents=True, exist_ok=True)
        con = connect(db)
    stats = BuildStats()
    try:
        ensure_schema(con)
        text_flag = "1" if with_text else "0"
        if _meta(con, "with_text") not in (None, text_flag):
            # Built with the other setting: every row's text column would be wrong; start again.
            for table in TABLES:
                con.execute(f"DELETE FROM {table}")
        con.execute("INSERT OR REPLACE INTO index_meta VALUES ('with_text', ?)", [text_flag])
        known: dict[str, tuple[int, float, str]] = {
            str(r[0]): (int(r[1]), float(r[2]), str(r[3]))
            for r in con.execute("SELECT recording, size, mtime, hash FROM recordings").fetchall()
        }
        present = {str(f) for f in files}
        gone = [
            rec
            for rec in known
            if rec not in present
            and (Path(rec) in missing or any(Path(rec).is_relative_to(root) for root in roots))
        ]
        unknown = [p for p in missing if str(p) not in known]
        if unknown:
            raise ConfigError(f"no such file or folder: {unknown[0]}")
        for rec in gone:
            con.execute("BEGIN")
            _delete_recording(con, rec)
            con.execute("COMMIT")
            stats.removed += 1
        for path in files:
            rec = str(path)
            st = path.stat()
            old = known.get(rec)
            if old is not None and old[0] == st.st_size and old[1] == st.st_mtime:
                stats.unchanged += 1
                continue
            digest = _sha256(path)
            if old is not None and old[2] == digest:
                con.execute("UPDATE recordings SET mtime = ? WHERE recording = ?", [st.st_mtime, rec])
                stats.unchanged += 1
                continue
            try:
                analysis = analyse_recording(path)
            except (CtxscopeError, ValueError, OSError) as err:
                line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
                stats.skipped.append(f"skipped {path}: {line}")
                if old is not None:
                    _delete_recording(con, rec)
                continue
            rows = recording_rows(
                analysis, FileFacts(rec, digest, st.st_size, st.st_mtime), with_text=with_text
            )
            con.execute("BEGIN")
            _store(con, rec, rows, old is not None, stats)
            con.execute("COMMIT")
            if old is None:
                stats.added += 1
            else:
                stats.updated += 1
            if progress is not None:
                progress(rec)
    finally:
        if own:
            con.close()
            if db is not None and db.exists():
                db.chmod(0o600)
    return stats

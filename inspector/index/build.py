"""Build the index incrementally: new recordings are added, changed ones updated turn by turn,
removed ones deleted, unchanged ones skipped.

A file whose size, mtime (in nanoseconds) and inode are what the index holds is unchanged without
being read; otherwise its sha256 decides (a file touched but not changed only gets its stat facts
updated). A changed file is analysed again whole (the analysis of a turn depends on the turns before
it) and, table by table, only the turns whose rows differ are replaced: a recording that grew by
appending adds only its new turns' rows. New recordings' rows are gathered and written in batches
(bounded, so memory is too) through DuckDB's JSON reader, one statement per table per batch: the
analysis stays the only per-turn work in Python. A damaged or foreign file is skipped with one line
naming it; the rest is indexed.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ctxscope.inspector.index._duckdb import connect
from ctxscope.inspector.index.analysed import analysed
from ctxscope.inspector.index.files import SCHEMA_VERSION, FileFacts, known_files, recording_files, same_stat
from ctxscope.inspector.index.schema import TABLES, TURN_TABLES, create_sql
from ctxscope.proxy.errors import ConfigError

if TYPE_CHECKING:
    from ctxscope.inspector.index.rows import Row, Rows

__all__ = ["BuildStats", "build_index", "ensure_schema", "insert_rows"]

_META = "CREATE TABLE IF NOT EXISTS index_meta (key VARCHAR PRIMARY KEY, value VARCHAR)"
_BATCH_ROWS = 20_000
"""New recordings' rows held before they are written (the bound on the build's memory). 20,000, not
50,000: beside two workers the command's own share is what keeps the whole within 300 MB (proportional
set sizes summed over 3,000 recordings: 307 -> 293 MB; one process alone 234 -> 209 MB)."""


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
    """Create the tables that do not exist yet (all of them again if built with another schema).
    An index that is complete is only read: a re-index with nothing changed writes nothing."""
    have = {str(r[0]) for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    row = None
    if "index_meta" in have:
        row = con.execute("SELECT value FROM index_meta WHERE key = 'schema'").fetchone()
    if row is not None and row[0] == SCHEMA_VERSION and have >= set(TABLES):
        return
    con.execute(_META)
    if row is None or row[0] != SCHEMA_VERSION:
        for name in TABLES:
            con.execute(f"DROP TABLE IF EXISTS {name}")
        con.execute("DELETE FROM index_meta")
        con.execute("INSERT INTO index_meta VALUES ('schema', ?)", [SCHEMA_VERSION])
    for table in TABLES.values():
        con.execute(create_sql(table))


def _select(column_type: str, source: str) -> str:
    # TIMESTAMPTZ values travel as exact Unix microseconds (rows.py's `_micros`)
    return f"make_timestamptz(unnest({source}))" if column_type == "TIMESTAMPTZ" else f"unnest({source})"


def _json_type(column_type: str) -> str:
    return ("BIGINT" if column_type == "TIMESTAMPTZ" else column_type) + "[]"


def _valid(value: Any) -> Any:
    return value.encode("utf-8", "replace").decode("utf-8") if isinstance(value, str) else value


def insert_rows(con: Any, table: str, rows: list[Row], scratch: Path | None = None) -> None:
    """Insert `rows` into `table` in one statement: the columns written as one JSON object of lists
    (orjson) that DuckDB's JSON reader loads and unnests, far faster than binding Python lists."""
    if not rows:
        return
    spec = TABLES[table]
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        path = Path(tmp) / f"{table}.json"
        columns = {f"c{i}": column for i, column in enumerate(zip(*rows, strict=True))}
        try:
            data = orjson.dumps(columns, option=orjson.OPT_NON_STR_KEYS)
        except orjson.JSONEncodeError:  # a lone surrogate in a text: that one character becomes '?'
            data = orjson.dumps(
                {k: [_valid(v) for v in column] for k, column in columns.items()}, option=orjson.OPT_NON_STR_KEYS
            )
        path.write_bytes(data)
        types = ", ".join(f"c{i}: '{_json_type(c.type)}'" for i, c in enumerate(spec.columns))
        selects = ", ".join(_select(c.type, f"c{i}") for i, c in enumerate(spec.columns))
        source = "'" + str(path).replace("'", "''") + "'"
        con.execute(
            f"INSERT INTO {table} SELECT {selects} FROM read_json({source}, columns = {{{types}}}, "
            f"maximum_object_size = {max(16 << 20, 2 * path.stat().st_size)})"
        )


def _read_facts(path: Path, name: str) -> tuple[str, str]:
    """(sha256 of the file's bytes, the recording's id), in one read. The id is the sha256 of the header
    line (the recording's first line, never rewritten) and the relative name: the same in every copy
    kept under that name, on any machine, and unchanged as the recording grows."""
    digest = hashlib.sha256()
    first = b""
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            if not first or not first.endswith(b"\n"):
                first += block[: block.find(b"\n") + 1] if b"\n" in block else block
            digest.update(block)
    return digest.hexdigest(), hashlib.sha256(first.rstrip(b"\r\n") + b"\n" + name.encode()).hexdigest()


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


def _store(con: Any, rec: str, rows: Rows, known: bool, stats: BuildStats, scratch: Path | None = None) -> None:
    """Write one recording's rows; for a known recording replace only the turns that changed."""
    for table, new in rows.items():
        if not known or table not in TURN_TABLES:
            if known:
                con.execute(f"DELETE FROM {table} WHERE recording = ?", [rec])
            insert_rows(con, table, new, scratch)
            stats.rows_inserted[table] += len(new)
            continue
        names = TABLES[table].names
        at = names.index("turn")
        cols = ", ".join(
            f'epoch_us("{c.name}")' if c.type == "TIMESTAMPTZ" else f'"{c.name}"' for c in TABLES[table].columns
        )
        old = _by_turn(con.execute(f"SELECT {cols} FROM {table} WHERE recording = ?", [rec]).fetchall(), at)
        fresh = _by_turn(new, at)
        if table == "items":
            _extend_items(con, rec, old, fresh, stats)
        stale = sorted(t for t in old if old[t] != fresh.get(t))
        if stale:
            marks = ", ".join("?" for _ in stale)
            con.execute(f"DELETE FROM {table} WHERE recording = ? AND turn IN ({marks})", [rec, *stale])
        changed = [row for t, group in fresh.items() if group != old.get(t) for row in group.elements()]
        insert_rows(con, table, changed, scratch)
        stats.rows_inserted[table] += len(changed)
        if table == "turns":
            stats.turns_deleted += len(stale)
            stats.turns_added += len(changed)
    if not known:
        stats.turns_added += len(rows["turns"])


def _meta(con: Any, key: str) -> str | None:
    row = con.execute("SELECT value FROM index_meta WHERE key = ?", [key]).fetchone()
    return None if row is None else str(row[0])


def _write_batch(con: Any, batch: Rows, scratch: Path, stats: BuildStats) -> None:
    """Write the gathered new recordings' rows: one transaction, one statement per table."""
    if not any(batch.values()):
        return
    con.execute("BEGIN")
    for table, rows in batch.items():
        insert_rows(con, table, rows, scratch)
        stats.rows_inserted[table] += len(rows)
        rows.clear()
    con.execute("COMMIT")


def _one_thread(con: Any) -> int:
    """Have DuckDB write with one thread while worker processes analyse: they take every core, and
    DuckDB's own threads for these small inserts only contend with them (3,000 recordings, two
    workers: 8.1 -> 7.2 s, the workers' CPU 12.6 -> 11.1 s). Returns the setting it had."""
    row = con.execute("SELECT current_setting('threads')").fetchone()
    con.execute("SET threads = 1")
    return int(row[0]) if row is not None else 1


def build_index(
    db: Path | None,
    paths: Iterable[Path],
    *,
    with_text: bool = False,
    con: Any = None,
    progress: Callable[[str], None] | None = None,
    jobs: int = 1,
    notice: Callable[[str], None] | None = None,
) -> BuildStats:
    """Index the recordings under `paths` into the database `db` (or the open connection `con`),
    analysing changed files in `jobs` processes (1, the default: all in this one; `ctxscope index`
    asks for one per CPU, `default_jobs()`); `notice` gets the line said if the workers cannot start
    or stop (default: printed to stderr).

    Workers are started fresh (spawn), and each first runs the caller's main module as
    multiprocessing does: a script asking for more than one job must keep its work under
    `if __name__ == "__main__":`, or its workers would run it again (open, even delete, the index)."""
    files, roots, missing = recording_files(paths)
    own = con is None
    if own:
        if db is not None:
            db.parent.mkdir(parents=True, exist_ok=True)
        con = connect(db)
    stats = BuildStats()
    threads = _one_thread(con) if jobs > 1 else None
    try:
        ensure_schema(con)
        text_flag = "1" if with_text else "0"
        built_with = _meta(con, "with_text")
        if built_with not in (None, text_flag):
            # Built with the other setting: every row's text column would be wrong; start again.
            for table in TABLES:
                con.execute(f"DELETE FROM {table}")
        if built_with != text_flag:
            con.execute("INSERT OR REPLACE INTO index_meta VALUES ('with_text', ?)", [text_flag])
        known = known_files(con)
        present = {f for f, _ in files}
        gone = [
            where
            for where in known
            if where not in present
            and (Path(where) in missing or any(Path(where).is_relative_to(root) for root in roots))
        ]
        unknown = [p for p in missing if str(p) not in known]
        if unknown:
            raise ConfigError(f"no such file or folder: {unknown[0]}")
        for where in gone:
            con.execute("BEGIN")
            _delete_recording(con, known.pop(where)[0])
            con.execute("COMMIT")
            stats.removed += 1
        owner = {facts[0]: where for where, facts in known.items()}
        """Recording id → the file indexed under it (one recording found twice is indexed once)."""
        batch: Rows = {name: [] for name in TABLES}
        pending = 0
        olds: dict[str, tuple[Any, ...] | None] = {}

        def changed() -> Iterator[FileFacts]:
            """The files to analyse: a file whose stat facts (or, read, whose bytes) are what the index
            holds is unchanged. Read as the analysis goes, so workers start on the first ones."""
            for where, name in files:
                st = os.stat(where)
                old = known.get(where)
                if old is not None and same_stat(old[1:4], st):
                    stats.unchanged += 1
                    continue
                digest, rec = _read_facts(Path(where), name)
                if old is not None and old[4] == digest and old[0] == rec:
                    con.execute(
                        "UPDATE recordings SET size = ?, mtime_ns = ?, inode = ? WHERE recording = ?",
                        [st.st_size, st.st_mtime_ns, st.st_ino, rec],
                    )
                    stats.unchanged += 1
                    continue
                olds[where] = old
                yield FileFacts(rec, name, where, digest, st.st_size, st.st_mtime_ns, st.st_ino)

        with tempfile.TemporaryDirectory(prefix="ctxscope-index-") as tmp:
            scratch = Path(tmp)
            # Every changed file is analysed (in worker processes when there are many); which of two
            # copies of one recording is indexed is decided here, in the files' order, as it comes back.
            for done in analysed(changed(), with_text=with_text, jobs=jobs, notice=notice):
                facts = done.facts
                where, rec, old = facts.path, facts.recording, olds[facts.path]
                if owner.get(rec, where) != where:
                    stats.skipped.append(f"skipped {where}: the same recording as {owner[rec]} (indexed once)")
                    continue
                if done.rows is None:
                    stats.skipped.append(done.skipped or f"skipped {where}")
                    if old is not None:
                        _delete_recording(con, old[0])
                        owner.pop(old[0], None)
                    continue
                rows = done.rows
                owner[rec] = where
                replaced = old is not None and old[0] != rec
                if replaced:  # the file now holds another recording: the old one's rows go, all of them
                    assert old is not None
                    _delete_recording(con, old[0])
                    owner.pop(old[0], None)
                if old is None or replaced:
                    for table, new in rows.items():
                        batch[table] += new
                        pending += len(new)
                    stats.turns_added += len(rows["turns"])
                    if replaced:
                        stats.updated += 1
                    else:
                        stats.added += 1
                    if pending >= _BATCH_ROWS:
                        _write_batch(con, batch, scratch, stats)
                        pending = 0
                else:
                    con.execute("BEGIN")
                    _store(con, rec, rows, True, stats, scratch)
                    con.execute("COMMIT")
                    stats.updated += 1
                if progress is not None:
                    progress(where)
            _write_batch(con, batch, scratch, stats)
    finally:
        if threads is not None and not own:
            con.execute(f"SET threads = {threads}")
        if own:
            con.close()
            if db is not None and db.exists():
                db.chmod(0o600)
    return stats

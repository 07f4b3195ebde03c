"""The index's tables as Parquet files a warehouse reads as they are, and those files read back as the
tables.

`export_parquet(con, DIR)` writes `DIR/<table>/<YYYY-MM>.parquet`: one file per table per month of
the recordings' `day` (every file rewritten by each export), with DuckDB's own writer, owner-only.
Timestamps are Parquet's UTC-adjusted `TIMESTAMP` (`isAdjustedToUTC`), JSON is text, and rows name a
recording by its id and relative name only (never this machine's paths, inodes or mtimes), so two
people's exports join. `attach_parquet(con, DIR)` binds each table name to its files, so the same SQL
(the named questions too) runs on the export: here, or in any engine that reads Parquet.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from ctxscope.inspector.index._duckdb import private_files
from ctxscope.inspector.index.schema import EXPORTED, TABLES, create_sql

__all__ = ["attach_parquet", "export_parquet"]


def _quote(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def export_parquet(con: Any, out: Path) -> dict[str, int]:
    """Write every table under `out` (replacing what an earlier export wrote); rows per table."""
    counts: dict[str, int] = {}
    with private_files():
        out.mkdir(parents=True, exist_ok=True)
        out.chmod(0o700)
        for name in TABLES:
            target = out / name
            if target.exists():
                shutil.rmtree(target)  # a month whose rows are gone must not survive in the export
            counts[name] = int(con.execute(f"SELECT count(*) FROM {name}").fetchone()[0])
            if not counts[name]:
                continue
            target.mkdir()
            columns = ", ".join(f'"{c.name}"' for c in EXPORTED[name])
            months = con.execute(f"SELECT DISTINCT strftime(day, '%Y-%m') FROM {name} ORDER BY 1").fetchall()
            for (month,) in months:
                con.execute(
                    f"COPY (SELECT {columns} FROM {name} WHERE strftime(day, '%Y-%m') = ? ORDER BY recording) "
                    f"TO {_quote(target / f'{month}.parquet')} (FORMAT PARQUET, COMPRESSION zstd)",
                    [month],
                )
    for root, dirs, files in os.walk(out):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o700)
        for f in files:
            os.chmod(os.path.join(root, f), 0o600)
    return counts


def attach_parquet(con: Any, folder: Path) -> None:
    """Views named as the tables over `folder`'s Parquet files (an empty table where none were written;
    the columns the export leaves out are NULL)."""
    for name, table in TABLES.items():
        files = folder / name
        if not any(files.glob("*.parquet")) if files.is_dir() else True:
            con.execute(create_sql(table).replace("CREATE TABLE IF NOT EXISTS", "CREATE TABLE"))
            continue
        exported = {c.name for c in EXPORTED[name]}
        values = {c.name: f'"{c.name}"' if c.name in exported else "NULL" for c in table.columns}
        columns = ", ".join(f'CAST({values[c.name]} AS {c.type}) AS "{c.name}"' for c in table.columns)
        source = f"read_parquet({_quote(files / '*.parquet')})"
        con.execute(f"CREATE VIEW {name} AS SELECT {columns} FROM {source}")

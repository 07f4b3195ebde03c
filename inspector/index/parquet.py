"""The index's tables as Parquet files partitioned by day, and those files read back as the tables.

`export_parquet(con, DIR)` writes `DIR/<table>/day=YYYY-MM-DD/*.parquet` with DuckDB's own writer
(no other dependency), owner-only; `attach_parquet(con, DIR)` binds each table name to its files, so
the same SQL (the named questions too) runs on the export: here, or in DuckDB over object storage,
ClickHouse, Spark or BigQuery.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from ctxscope.inspector.index._duckdb import private_files
from ctxscope.inspector.index.schema import TABLES, create_sql

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
                shutil.rmtree(target)  # a day whose rows are gone must not survive in the export
            counts[name] = int(con.execute(f"SELECT count(*) FROM {name}").fetchone()[0])
            if counts[name]:
                con.execute(f"COPY {name} TO {_quote(target)} (FORMAT PARQUET, PARTITION_BY (day))")
    for root, dirs, files in os.walk(out):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o700)
        for f in files:
            os.chmod(os.path.join(root, f), 0o600)
    return counts


def attach_parquet(con: Any, folder: Path) -> None:
    """Views named as the tables over `folder`'s Parquet files (an empty table where none were written)."""
    for name, table in TABLES.items():
        files = folder / name
        if not any(files.rglob("*.parquet")) if files.is_dir() else True:
            con.execute(create_sql(table).replace("CREATE TABLE IF NOT EXISTS", "CREATE TABLE"))
            continue
        columns = ", ".join(f'CAST("{c.name}" AS {c.type}) AS "{c.name}"' for c in table.columns)
        source = f"read_parquet({_quote(files / '**' / '*.parquet')}, hive_partitioning = true)"
        con.execute(f"CREATE VIEW {name} AS SELECT {columns} FROM {source}")

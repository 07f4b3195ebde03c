"""Run SQL over the index (the DuckDB file, or a folder of its Parquet export) and format the result.

The connection only reads: `open_index` locks it (`_duckdb.confine`: no file outside the index or
folder, no extensions, no network, settings locked) before any SQL of the user's, and `run_sql` runs
only queries (a COPY, EXPORT, ATTACH, CREATE, INSTALL or SET is refused in one line).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ctxscope.inspector.index._duckdb import confine, connect, duckdb, read_only_statements
from ctxscope.inspector.index.parquet import attach_parquet
from ctxscope.proxy.errors import ConfigError

__all__ = ["FORMATS", "Result", "format_result", "open_index", "run_sql"]

FORMATS = ("table", "csv", "json")

Result = tuple[list[str], list[tuple[Any, ...]]]
"""Column names and rows."""


def open_index(source: Path) -> Any:
    """A read-only connection to the index at `source`: a DuckDB file or a Parquet export folder,
    locked to reading only it (see the module docstring)."""
    if source.is_dir():
        con = connect(None)
        try:
            confine(con, directories=[source])
            attach_parquet(con, source)  # views over the folder's files: bound, not read, here
        except BaseException:
            con.close()
            raise
        return con
    con = connect(source, read_only=True)
    try:
        confine(con, files=[source])
    except BaseException:
        con.close()
        raise
    return con


def run_sql(con: Any, sql: str) -> Result:
    """The columns and rows of `sql` (queries only); a bad or refused query is a one-line error."""
    try:
        read_only_statements(con, sql)
        cursor = con.execute(sql)
        columns = [d[0] for d in cursor.description or []]
        return columns, cursor.fetchall()
    except duckdb().Error as err:
        first = str(err).strip().splitlines()[0]
        if isinstance(err, duckdb().PermissionException):
            first += "; ctxscope query reads only the index it was given (docs/index.md)"
        raise ConfigError(f"query failed: {first}") from None


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


def format_result(result: Result, output_format: str) -> str:
    """The result as an aligned table, CSV, or JSON (a list of objects)."""
    columns, rows = result
    if output_format == "json":
        return json.dumps(
            [dict(zip(columns, map(_plain, r), strict=True)) for r in rows],
            indent=2,
            ensure_ascii=False,
            default=str,
        )
    if output_format == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[_plain(v) for v in r] for r in rows])
        return out.getvalue().rstrip("\n")
    cells = [["" if v is None else str(_plain(v)) for v in r] for r in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    numeric = [
        all(isinstance(r[i], int | float) or r[i] is None for r in rows) and rows for i in range(len(columns))
    ]

    def line(values: list[str]) -> str:
        return "  ".join(
            v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)
        ).rstrip()

    lines = [line(columns), line(["-" * w for w in widths]), *(line(r) for r in cells)]
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines)

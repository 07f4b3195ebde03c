"""The Parquet export as a warehouse reads it: one file per table per month, UTC-adjusted timestamps,
JSON as text, no local paths, and the same rows through DuckDB, pandas and polars (types checked
with pyarrow). Real recordings, real files, the real libraries."""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pandas
import polars
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ctxscope.inspector.index import TABLES, build_index, export_parquet
from ctxscope.inspector.index._duckdb import connect
from ctxscope.inspector.index.schema import EXPORTED

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("parquet")
    db = tmp / "index.duckdb"
    build_index(db, [FIXTURES])
    with connect(db) as con:
        export_parquet(con, tmp / "out")
    return tmp / "out"


def plain(value: Any) -> Any:
    """One value as plain Python, whichever library read it (pandas widens nullable ints to float)."""
    if value is None or value is pandas.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, pandas.Timestamp):
        value = value.to_pydatetime()
    if isinstance(value, datetime):
        assert value.tzinfo is not None, "a timestamp read without its time zone"
        return value.astimezone(UTC)
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # a numpy scalar
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bytes):
        raise AssertionError(f"a binary value: {value[:40]!r}")
    return value


def normalised(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return sorted((tuple(plain(v) for v in row) for row in rows), key=repr)


def test_one_file_per_table_per_month_with_the_warehouse_types(export: Path) -> None:
    months = {p.stem for p in (export / "recordings").glob("*.parquet")}
    assert months and all(len(m) == 7 and m[4] == "-" for m in months)
    for name in TABLES:
        files = sorted((export / name).glob("*.parquet"))
        if not files:
            continue
        assert {p.stem for p in files} <= months
        schema = pq.read_schema(files[0])
        assert schema.names == [c.name for c in EXPORTED[name]]
        for field in schema:
            assert not pa.types.is_binary(field.type) and not pa.types.is_large_binary(field.type), field
        for column in EXPORTED[name]:
            field = schema.field(column.name)
            if column.type == "TIMESTAMPTZ":
                assert field.type == pa.timestamp("us", tz="UTC"), field
                logical = pq.ParquetFile(files[0]).schema.column(schema.get_field_index(column.name)).logical_type
                assert json.loads(logical.to_json())["isAdjustedToUTC"] is True
            elif column.type == "DATE":
                assert field.type == pa.date32()
            elif column.type == "VARCHAR":
                assert pa.types.is_string(field.type) or pa.types.is_large_string(field.type), field
    assert "path" not in pq.read_schema(next((export / "recordings").glob("*.parquet"))).names
    worlds = pq.read_table(export / "turns", columns=["world"]).column("world").to_pylist()
    assert worlds and all(isinstance(json.loads(w), dict) for w in worlds)


@pytest.mark.parametrize("table", ["recordings", "turns", "items", "composition", "events"])
def test_duckdb_pandas_and_polars_read_the_same_rows(export: Path, table: str) -> None:
    folder = export / table
    columns = [c.name for c in EXPORTED[table]]
    by_duckdb = duckdb.connect().execute(f"SELECT * FROM read_parquet('{folder}/*.parquet')").fetchall()
    frame = pandas.read_parquet(folder)
    by_pandas = list(frame[columns].itertuples(index=False, name=None))
    by_polars = polars.read_parquet(f"{folder}/*.parquet").select(columns).rows()
    assert len(by_duckdb) > 0
    assert normalised(by_duckdb) == normalised(by_pandas) == normalised(by_polars)
    if table == "turns":
        assert str(frame["started"].dtype).endswith("UTC]")
        assert polars.read_parquet(f"{folder}/*.parquet").schema["started"] == polars.Datetime("us", "UTC")
        assert isinstance(by_polars[0][columns.index("world")], str)
    if table == "recordings":
        assert all(isinstance(d, date) for d in frame["day"])

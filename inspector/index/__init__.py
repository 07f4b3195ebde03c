"""The cross-recording index: many recordings' analyses as tables in an embedded DuckDB file, and
the same tables as Parquet for engines elsewhere (docs/index.md).

    schema     every table and column, one definition (tables, docs, Parquet views)
    rows       one recording's analysis as rows (the one analysis; nothing recomputed)
    build      incremental indexing: unchanged files skipped, changed turns replaced, removed files gone
    questions  the named questions' SQL
    query      SQL over the index or its Parquet export, as a table, CSV or JSON
    parquet    export one file per table per month, and read back as the tables
    cli        `ctxscope index` and `ctxscope query`

DuckDB is the optional extra `index` (`pip install 'ctxscope[index]'`); it is imported only when
the index is used, and its absence is a one-line error naming the extra. The analysis is imported
only when a recording is to be analysed (a re-index of unchanged files never imports it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:
    from ctxscope.inspector.index.build import BuildStats, build_index
    from ctxscope.inspector.index.parquet import attach_parquet, export_parquet
    from ctxscope.inspector.index.query import format_result, open_index, run_sql
    from ctxscope.inspector.index.questions import QUESTIONS, Question
    from ctxscope.inspector.index.rows import FileFacts, recording_rows
    from ctxscope.inspector.index.schema import TABLES, Column, Table

_LAZY = {
    "QUESTIONS": "questions",
    "TABLES": "schema",
    "BuildStats": "build",
    "Column": "schema",
    "FileFacts": "rows",
    "Question": "questions",
    "Table": "schema",
    "attach_parquet": "parquet",
    "build_index": "build",
    "export_parquet": "parquet",
    "format_result": "query",
    "open_index": "query",
    "recording_rows": "rows",
    "run_sql": "query",
}

__all__ = [
    "QUESTIONS",
    "TABLES",
    "BuildStats",
    "Column",
    "FileFacts",
    "Question",
    "Table",
    "attach_parquet",
    "build_index",
    "export_parquet",
    "format_result",
    "open_index",
    "recording_rows",
    "run_sql",
]


__getattr__ = lazy_attributes(__name__, {n: f".{m}" for n, m in _LAZY.items()}, __all__, globals())[0]

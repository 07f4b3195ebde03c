"""`ctxscope index` (build the cross-recording index, optionally export it as Parquet) and
`ctxscope query` (SQL, or a named question, over the index or its Parquet export) as typer commands.

`ctxscope index` is `run.index_run`; `ctxscope.cli.main` runs it without typer when it can (`run.run_fast`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ctxscope.inspector.index.run import default_db, index_run
from ctxscope.proxy.errors import ConfigError

__all__ = ["default_db", "index_command", "query_command", "register"]


def index_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Recordings or folders of them (default: the ctxscope home's recordings)."),
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="The DuckDB file.")] = None,
    parquet: Annotated[
        Path | None, typer.Option("--parquet", help="Also write the tables as Parquet here, a file per month.")
    ] = None,
    with_text: Annotated[bool, typer.Option("--with-text", help="Copy item texts into the index.")] = False,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", min=1, help="Processes analysing changed files (default: one per CPU)."),
    ] = None,
) -> None:
    """Index recordings (incrementally) into an embedded DuckDB database for questions across sessions."""
    index_run(list(paths or []), output, parquet, with_text, jobs=jobs)


def query_command(
    args: Annotated[
        list[str] | None,
        typer.Argument(help='[DB] "SQL": the index (a DuckDB file or a Parquet export folder) and a query.'),
    ] = None,
    output_format: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
    compactions: Annotated[bool, typer.Option("--compactions", help="Every compaction turn.")] = False,
    tokens_by_kind: Annotated[bool, typer.Option("--tokens-by-kind", help="Tokens sent by context kind.")] = False,
    cache_breaks: Annotated[bool, typer.Option("--cache-breaks", help="Cache breaks by cause.")] = False,
    cost: Annotated[bool, typer.Option("--cost", help="What each recording cost, by model.")] = False,
    agents: Annotated[bool, typer.Option("--agents", help="What each agent cost, with its parent.")] = False,
    agents_md: Annotated[
        bool, typer.Option("--agents-md", help="AGENTS.md versions in context, and failed turns.")
    ] = False,
    errors: Annotated[bool, typer.Option("--errors", help="Turns that did not complete.")] = False,
    tools_unused: Annotated[bool, typer.Option("--tools-unused", help="Tools offered and never called.")] = False,
) -> None:
    """Ask the index: SQL over its tables (docs/index.md), or a named question."""
    from ctxscope.inspector.index.query import FORMATS, format_result, open_index, run_sql
    from ctxscope.inspector.index.questions import QUESTIONS

    if output_format not in FORMATS:
        raise ConfigError(f"--format {output_format!r}: use table, csv or json")
    chosen = [
        name
        for name, flag in (
            ("compactions", compactions),
            ("tokens-by-kind", tokens_by_kind),
            ("cache-breaks", cache_breaks),
            ("cost", cost),
            ("agents", agents),
            ("agents-md", agents_md),
            ("errors", errors),
            ("tools-unused", tools_unused),
        )
        if flag
    ]
    rest = list(args or [])
    if len(chosen) > 1:
        raise ConfigError("ask one named question at a time: " + ", ".join(f"--{c}" for c in chosen))
    if chosen:
        if len(rest) > 1:
            raise ConfigError(f"--{chosen[0]} takes no SQL; give at most the index: ctxscope query [DB] --{chosen[0]}")
        source = Path(rest[0]) if rest else default_db()
        question = QUESTIONS[chosen[0]]
        sql = question.sql
    else:
        if not rest or len(rest) > 2:
            raise ConfigError('give a query: ctxscope query [DB] "select count(*) from turns" (or a named question)')
        if len(rest) == 1 and Path(rest[0]).exists():
            raise ConfigError(f'give a query after the index: ctxscope query {rest[0]} "select count(*) from turns"')
        source = Path(rest[0]) if len(rest) == 2 else default_db()
        sql = rest[-1]
    con = open_index(source)
    try:
        result = run_sql(con, sql)
    finally:
        con.close()
    if chosen and output_format == "table":
        print(f"{QUESTIONS[chosen[0]].help} ({source})")
    print(format_result(result, output_format))
    if chosen and output_format == "table" and "recording" in result[0] and "turn" in result[0] and result[1]:
        print("open one: ctxscope inspect RECORDING --turn TURN")


def register(app: typer.Typer) -> None:
    app.command("index")(index_command)
    app.command("query")(query_command)

"""DuckDB, the index's one optional dependency: imported here only, with a one-line error naming the
extra when it is missing; and the lock that keeps `ctxscope query` to reading the index.

`confine(con, paths)` turns off what SQL could otherwise reach beyond the index: DuckDB's own settings
(`enable_external_access` off with only the index's files in `allowed_paths` / `allowed_directories`,
extensions neither installed nor loaded, no spill files, `lock_configuration` on, so the user's SQL
cannot turn any of it back), set before that SQL runs. `read_only_statement` refuses, in one line, any
statement that is not a query (COPY, EXPORT, ATTACH, CREATE, INSTALL, SET, ...): the settings refuse
file access outside the index, and this refuses writing inside it too.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ctxscope.proxy.errors import ConfigError

__all__ = ["confine", "connect", "duckdb", "private_files", "read_only_statements"]


def duckdb() -> Any:
    """The `duckdb` module, or a `ConfigError` that says how to install it."""
    try:
        import duckdb as module
    except ImportError:
        raise ConfigError(
            "the index needs DuckDB: pip install 'ctxscope[index]' (or pip install duckdb)"
        ) from None
    return module


@contextlib.contextmanager
def private_files() -> Iterator[None]:
    """Files DuckDB creates meanwhile (the database, its WAL, Parquet files) are owner-only."""
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def connect(path: Path | None, *, read_only: bool = False) -> Any:
    """A connection to the index at `path` (None: in memory); a one-line error when it cannot open."""
    module = duckdb()
    if path is not None and read_only and not path.exists():
        raise ConfigError(f"no index at {path}: build one with `ctxscope index DIR -o {path}`")
    try:
        with private_files():
            con = module.connect(str(path) if path is not None else ":memory:", read_only=read_only)
    except module.Error as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ConfigError(f"cannot open the index {path}: {first}") from None
    if path is not None and path.exists():
        path.chmod(0o600)
    return con


_READ_ONLY_SETTINGS = (
    ("autoinstall_known_extensions", "false"),
    ("autoload_known_extensions", "false"),
    ("allow_community_extensions", "false"),
    ("allow_unsigned_extensions", "false"),
    ("temp_directory", "''"),  # no spill files next to the index: a query that needs them fails
    ("enable_external_access", "false"),
    ("lock_configuration", "true"),  # last: from here on no setting changes, not even by the SQL
)
_QUERY_STATEMENTS = frozenset({"SELECT", "EXPLAIN"})
_FULL_POWER = "open the index with DuckDB itself for more (docs/index.md)"


def _sql_list(paths: Iterable[str]) -> str:
    return "[" + ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths) + "]"


def confine(con: Any, *, files: Iterable[Path] = (), directories: Iterable[Path] = ()) -> None:
    """Lock `con` to reading: no file but `files` and those beneath `directories`, no extension
    install or load, no network, no further setting changes (see the module docstring).

    A DuckDB without these settings cannot be confined: a one-line error, and nothing runs."""
    known = {row[0] for row in con.execute("SELECT name FROM duckdb_settings()").fetchall()}
    settings = [
        ("allowed_paths", _sql_list(os.path.realpath(p) for p in files)),
        ("allowed_directories", _sql_list(os.path.realpath(p) + os.sep for p in directories)),
        *_READ_ONLY_SETTINGS,
    ]
    missing = [name for name, _ in settings if name not in known]
    if missing:
        raise ConfigError(
            f"DuckDB {duckdb().__version__} cannot keep a query to the index (no {', '.join(missing)}): "
            "pip install 'duckdb>=1.2'"
        )
    for name, value in settings:
        con.execute(f"SET {name} = {value}")


def read_only_statements(con: Any, sql: str) -> None:
    """A `ConfigError` naming the first statement of `sql` that is not a query (SELECT, EXPLAIN)."""
    for statement in con.extract_statements(sql):
        kind = getattr(statement.type, "name", str(statement.type)).upper()
        if kind not in _QUERY_STATEMENTS:
            raise ConfigError(
                f"ctxscope query only reads the index: a {kind} statement is refused; {_FULL_POWER}"
            )

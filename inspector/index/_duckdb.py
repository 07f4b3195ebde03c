"""DuckDB, the index's one optional dependency: imported here only, with a one-line error naming the
extra when it is missing."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ctxscope.proxy.errors import ConfigError

__all__ = ["connect", "duckdb", "private_files"]


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

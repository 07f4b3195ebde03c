"""`ctxscope index` itself: build the index, print what changed, optionally export Parquet.

`index_run` is the command (the typer command in `cli` calls it). `run_fast(args)` is the same command
for `ctxscope.cli.main` before typer is imported: it reads the few arguments `ctxscope index` takes
(`PATH…`, `-o/--output FILE`, `--parquet DIR`, `-j/--jobs N`, `--with-text`, `--`) and runs `index_run`; anything
else (`--help`, a misspelt option, an option without its value) returns False untouched, and typer
parses it and says what is wrong, as for every command. So a re-index with nothing changed imports
DuckDB and this package's few modules, never typer, rich, pydantic or the analysis.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

from ctxscope.proxy.errors import ConfigError

__all__ = ["default_db", "index_run", "run_fast"]


def default_db() -> Path:
    """The index in the ctxscope home."""
    from ctxscope.proxy.home import ctxscope_home

    return ctxscope_home() / "index.duckdb"


def index_run(
    paths: list[Path], output: Path | None, parquet: Path | None, with_text: bool, *, jobs: int | None = None
) -> None:
    """Index `paths` (none: the ctxscope home's recordings) into `output` (none: the home's index),
    changed files analysed by `jobs` processes (none: one per CPU)."""
    from ctxscope.inspector.index.files import snapshot_up_to_date

    db = output or default_db()
    if db.is_dir():
        raise ConfigError(f"bad --output {str(db)!r}: it is a folder; give a file path")
    if not paths:
        from ctxscope.proxy.home import recordings_dir

        paths = [recordings_dir()]
    absent = [p for p in paths if not p.exists()]
    if absent and not db.exists():  # with an index, a named file that is gone has its rows removed
        raise ConfigError(f"no such file or folder: {absent[0]}")
    seen = snapshot_up_to_date(db, paths, with_text=with_text) if parquet is None else None
    if seen:  # nothing to do, known without opening the database
        _report(db, *seen[1:], (0, 0, seen[0], 0, 0, 0))
        return
    _index(db, paths, parquet, with_text, changed=seen is False, jobs=jobs)


def _report(db: Path, recordings: int, turns: int, done: tuple[int, int, int, int, int, int]) -> None:
    print(
        f"{db}: {recordings} recordings, {turns} turns ({done[0]} added, {done[1]} updated, "
        f"{done[2]} unchanged, {done[3]} removed, {done[4]} skipped; +{done[5]} turn rows)"
    )


class _Progress:
    """`ctxscope index: 1,234 files indexed (12 s)` on one line of a terminal while a long index runs:
    drawn once a second has passed or 200 files are done, redrawn at most five times a second, and
    cleared before the summary. Only on a terminal: a log or a pipe gets the summary alone."""

    FIRST_S, FIRST_FILES, EVERY_S = 1.0, 200, 0.2

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.count, self.shown = stream, 0, False
        self.start = self.drawn = time.monotonic()

    def __call__(self, where: str) -> None:
        self.count += 1
        now = time.monotonic()
        if not self.shown and now - self.start < self.FIRST_S and self.count < self.FIRST_FILES:
            return
        if self.shown and now - self.drawn < self.EVERY_S:
            return
        self.drawn, self.shown = now, True
        self.stream.write(f"\rctxscope index: {self.count:,} files indexed ({now - self.start:.0f} s)")
        self.stream.flush()

    def notice(self, line: str) -> None:
        """A line for the person (the workers' trouble): on a line of its own, the count redrawn below it."""
        self.close()
        print(line, file=self.stream, flush=True)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")  # back to the line's start, the line erased
            self.stream.flush()
            self.shown = False


def _index(
    db: Path, paths: list[Path], parquet: Path | None, with_text: bool, *, changed: bool, jobs: int | None
) -> None:
    """Build (or check, unless the snapshot said something `changed`) the index in DuckDB; leave the
    snapshot the next unchanged re-index reads."""
    from ctxscope.inspector.index._duckdb import connect
    from ctxscope.inspector.index.files import counts, up_to_date, write_snapshot

    db.parent.mkdir(parents=True, exist_ok=True)
    con, unchanged = None, None
    if db.exists() and parquet is None and not changed:
        # read-only first: opening to write costs more, and most re-indexes change nothing
        con = connect(db, read_only=True)
        unchanged = up_to_date(con, paths, with_text=with_text)
        if unchanged is None:
            con.close()
            con = None
    if con is None:
        from ctxscope.inspector.index.analysed import default_jobs
        from ctxscope.inspector.index.build import build_index

        con = connect(db)
    try:
        if unchanged is None:
            progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
            try:
                stats = build_index(
                    db,
                    paths,
                    with_text=with_text,
                    con=con,
                    jobs=jobs or default_jobs(),
                    progress=progress,
                    notice=progress.notice if progress is not None else None,
                )
            finally:
                if progress is not None:
                    progress.close()
            for line in stats.skipped:
                print(line, file=sys.stderr)
            done = (stats.added, stats.updated, stats.unchanged, stats.removed, len(stats.skipped), stats.turns_added)
        else:
            done = (0, 0, unchanged, 0, 0, 0)
        _report(db, *counts(con), done)
        if parquet is not None:
            from ctxscope.inspector.index.parquet import export_parquet

            written = export_parquet(con, parquet)
            print(f"{parquet}: {len(written)} tables as Parquet, a file per month ({sum(written.values())} rows)")
        snapshot = write_snapshot(db, con, with_text=with_text)
    finally:
        con.close()
    db.chmod(0o600)
    snapshot()


_VALUED = {"-o": "output", "--output": "output", "--parquet": "parquet", "-j": "jobs", "--jobs": "jobs"}


def run_fast(args: list[str]) -> bool:
    """Run `ctxscope index ARGS` if every argument is one it takes (True); else do nothing (False)."""
    paths: list[Path] = []
    options: dict[str, str] = {}
    with_text = False
    rest = iter(args)
    for arg in rest:
        name, eq, inline = arg.partition("=")
        if arg == "--":
            paths += [Path(a) for a in rest]
        elif arg == "--with-text":
            with_text = True
        elif name in _VALUED and name.startswith("--") and eq and inline:
            options[_VALUED[name]] = inline
        elif arg in _VALUED:
            value = next(rest, None)
            if value is None or value.startswith("-") or not value:
                return False  # typer says what is missing
            options[_VALUED[arg]] = value
        elif arg.startswith("-"):
            return False  # --help, or an option typer will name as unknown
        else:
            paths.append(Path(arg))
    jobs = options.get("jobs")
    if jobs is not None and not (jobs.isdigit() and int(jobs) >= 1):
        return False  # typer says what is wrong with it
    output, parquet = options.get("output"), options.get("parquet")
    index_run(
        paths,
        None if output is None else Path(output),
        None if parquet is None else Path(parquet),
        with_text,
        jobs=None if jobs is None else int(jobs),
    )
    return True

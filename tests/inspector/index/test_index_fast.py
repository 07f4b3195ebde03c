"""`ctxscope index` starts with what it needs: typer only for what its own parser does not know, the
analysis only for a file that changed, DuckDB not at all when the snapshot beside the index says that
nothing did; and every shortcut gives the answer the full path gives (real processes, real files)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ctxscope.inspector.index._duckdb import connect
from tests.cli_support import run_cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "inspector"


def _loaded(modules: set[str], prefix: str) -> bool:
    return any(m == prefix or m.startswith(prefix + ".") for m in modules)


def _index(args: list[str], tmp: Path) -> tuple[str, set[str]]:
    """(stdout, the modules imported) of a real `ctxscope index ARGS` process."""
    out = tmp / "modules.json"
    code = (
        "import json, sys\n"
        "from ctxscope.cli import main\n"
        f"sys.argv = ['ctxscope', 'index', *{args!r}]\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        f"    open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "CTXSCOPE_HOME": str(tmp / "home")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, set(json.loads(out.read_text()))


def _folder(tmp: Path) -> Path:
    folder = tmp / "recs"
    folder.mkdir()
    for name in ("chain.jsonl", "world.jsonl", "subagent.jsonl"):
        shutil.copy(FIXTURES / name, folder / name)
    return folder


def test_a_reindex_with_nothing_changed_imports_neither_typer_nor_duckdb_nor_the_analysis(tmp_path: Path) -> None:
    folder, db = _folder(tmp_path), tmp_path / "index.duckdb"
    first, _ = _index([str(folder), "-o", str(db)], tmp_path)
    assert "(3 added," in first
    snapshot = db.with_name(db.name + ".files")
    assert snapshot.exists() and (snapshot.stat().st_mode & 0o777) == 0o600
    again, modules = _index([str(folder), "-o", str(db)], tmp_path)
    assert again.split(" (")[0] == first.split(" (")[0]  # the same recordings and turns, told by the snapshot
    assert "0 added, 0 updated, 3 unchanged, 0 removed, 0 skipped; +0 turn rows" in again
    for heavy in ("typer", "click", "rich", "pydantic", "duckdb", "ctxscope.inspector.analysis"):
        assert not _loaded(modules, heavy), heavy
    # without the snapshot the database is asked, read-only: still no typer and no analysis
    snapshot.unlink()
    asked, modules = _index([str(folder), "-o", str(db)], tmp_path)
    assert asked == again and _loaded(modules, "duckdb")
    assert not _loaded(modules, "typer") and not _loaded(modules, "ctxscope.inspector.analysis")
    assert snapshot.exists()  # left for the next run


def test_one_appended_file_is_analysed_alone_without_typer_or_the_renderers(tmp_path: Path) -> None:
    folder, db = _folder(tmp_path), tmp_path / "index.duckdb"
    source = (FIXTURES / "chain.jsonl").read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    growing = folder / "chain.jsonl"
    growing.write_text("".join(lines[:-1]), encoding="utf-8")
    _index([str(folder), "-o", str(db)], tmp_path)
    with growing.open("a", encoding="utf-8") as stream:  # what the recorder does: append a line
        stream.write(lines[-1])
    grown, modules = _index([str(folder), "-o", str(db)], tmp_path)
    assert "(0 added, 1 updated, 2 unchanged, 0 removed, 0 skipped; +1 turn rows)" in grown
    assert _loaded(modules, "ctxscope.inspector.analysis") and not _loaded(modules, "typer")
    # the rows are read from the turn documents: neither rich nor the text and markdown renderers
    for unused in ("rich", "ctxscope.inspector.reports.text", "ctxscope.inspector.reports.markdown"):
        assert not _loaded(modules, unused), unused
    fresh = tmp_path / "fresh.duckdb"
    run_cli("index", str(folder), "-o", str(fresh))
    with connect(db) as a, connect(fresh) as b:
        assert a.execute("SELECT count(*) FROM turns").fetchone() == b.execute("SELECT count(*) FROM turns").fetchone()


def test_the_snapshot_is_not_trusted_once_anything_wrote_to_the_index(tmp_path: Path) -> None:
    folder, db = _folder(tmp_path), tmp_path / "index.duckdb"
    assert run_cli("index", str(folder), "-o", str(db)).returncode == 0
    with connect(db) as con:  # someone deletes rows with DuckDB itself
        con.execute("DELETE FROM recordings WHERE name = 'world.jsonl'")
    again = run_cli("index", str(folder), "-o", str(db))
    assert "(1 added, 0 updated, 2 unchanged" in again.stdout, again.stdout
    touched = folder / "chain.jsonl"  # touched, not changed: read, found equal, unchanged
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 1_000_000))
    assert "(0 added, 0 updated, 3 unchanged" in run_cli("index", str(folder), "-o", str(db)).stdout
    (folder / "world.jsonl").unlink()
    assert "(0 added, 0 updated, 2 unchanged, 1 removed" in run_cli("index", str(folder), "-o", str(db)).stdout
    snapshot = db.with_name(db.name + ".files")
    for foreign in ("not json", '{"files": []}', json.dumps({**json.loads(snapshot.read_text()), "files": []})):
        snapshot.write_text(foreign)  # damaged or foreign: the database is asked, and the snapshot rewritten
        assert "(0 added, 0 updated, 2 unchanged, 0 removed" in run_cli("index", str(folder), "-o", str(db)).stdout
        assert json.loads(snapshot.read_text())["recordings"] == 2
    text = run_cli("index", str(folder), "-o", str(db), "--with-text")  # the other setting: rebuilt
    assert "(2 added," in text.stdout


def test_what_its_own_parser_does_not_know_goes_to_typer(tmp_path: Path) -> None:
    folder, db = _folder(tmp_path), tmp_path / "index.duckdb"
    assert "(3 added," in run_cli("index", f"--output={db}", "--", str(folder)).stdout
    helped = run_cli("index", "--help")
    assert helped.returncode == 0 and "--parquet" in helped.stdout and "Usage" in helped.stdout
    wrong = run_cli("index", str(folder), "--bogus")
    assert wrong.returncode == 2 and "No such option" in wrong.stderr
    bare = run_cli("index", str(folder), "-o")
    assert bare.returncode == 2 and "requires an argument" in bare.stderr

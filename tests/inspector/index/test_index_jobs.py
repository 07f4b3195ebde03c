"""Indexing in worker processes gives the index one process gives: the same tables, the same skip
lines in the same order, the same copy of a recording found twice; the token counts the workers
learnt are kept for the next run (real worker processes, real DuckDB files, real recordings)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from ctxscope.inspector.index import build_index
from ctxscope.inspector.index._duckdb import connect
from ctxscope.inspector.index.analysed import POOL_MIN_FILES
from tests.cli_support import run_cli, run_cli_process
from tests.inspector.index.test_index import FIXTURES, tables


def _folder(tmp_path: Path) -> Path:
    """Every fixture recording and a foreign file: more files than the pool's threshold, so two jobs
    really use workers."""
    folder = tmp_path / "recs"
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        target = folder / path.relative_to(FIXTURES)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    (folder / "aa-notes.jsonl").write_text("not a recording\n")
    assert len(list(folder.rglob("*.jsonl"))) >= POOL_MIN_FILES
    return folder


def test_two_jobs_index_what_one_job_indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXSCOPE_HOME", str(tmp_path / "home"))
    folder = _folder(tmp_path)
    # the same recording under the same name in a second folder: indexed once, from the first
    again = tmp_path / "again" / "inspector" / "chain.jsonl"
    again.parent.mkdir(parents=True)
    shutil.copy(folder / "inspector" / "chain.jsonl", again)
    roots = [folder, tmp_path / "again"]
    one = build_index(tmp_path / "one.duckdb", roots, jobs=1)
    two = build_index(tmp_path / "two.duckdb", roots, jobs=2)
    assert one.skipped == two.skipped
    assert [line.split(":")[0] for line in two.skipped] == [f"skipped {folder / 'aa-notes.jsonl'}", f"skipped {again}"]
    assert "the same recording as" in two.skipped[1]
    assert (one.added, one.turns_added, one.rows_inserted) == (two.added, two.turns_added, two.rows_inserted)
    with connect(tmp_path / "one.duckdb") as a, connect(tmp_path / "two.duckdb") as b:
        assert tables(a) == tables(b)

    # an update through the workers: a changed file's new turns only, as in one process
    grown = folder / "inspector" / "world.jsonl"
    grown.write_bytes((folder / "inspector" / "chain.jsonl").read_bytes())
    for db in ("one", "two"):
        stats = build_index(tmp_path / f"{db}.duckdb", roots, jobs=1 if db == "one" else 2)
        assert stats.updated == 1 and stats.unchanged == len(list(folder.rglob("*.jsonl"))) - 2
    with connect(tmp_path / "one.duckdb") as a, connect(tmp_path / "two.duckdb") as b:
        assert tables(a) == tables(b)


def test_the_workers_token_counts_are_kept_for_the_next_run(tmp_path: Path) -> None:
    # `ctxscope index` itself, in a process of its own: the workers are started by the command a person
    # runs, and no counts are known in memory beforehand
    folder = _folder(tmp_path)
    home = tmp_path / "home"
    built = run_cli_process(
        "index", str(folder), "-o", str(tmp_path / "index.duckdb"), "-j", "2", env={"CTXSCOPE_HOME": str(home)}
    )
    assert built.returncode == 0, built.stderr
    assert "skipped" in built.stderr and "Traceback" not in built.stderr
    [cache] = (home / "cache").glob("token-counts-*.sqlite3")
    with closing(sqlite3.connect(cache)) as db:  # sqlite3's own `with` commits, it does not close
        kept = db.execute("SELECT count(*) FROM counts").fetchone()[0]
    one = tmp_path / "home-one"
    alone = run_cli_process(
        "index", str(folder), "-o", str(tmp_path / "one.duckdb"), "-j", "1", env={"CTXSCOPE_HOME": str(one)}
    )
    assert alone.returncode == 0, alone.stderr
    [cache_one] = (one / "cache").glob("token-counts-*.sqlite3")
    with closing(sqlite3.connect(cache_one)) as db:
        assert kept == db.execute("SELECT count(*) FROM counts").fetchone()[0] > 0


def test_a_bad_jobs_value_is_one_line(tmp_path: Path) -> None:
    world = str(FIXTURES / "inspector" / "world.jsonl")
    result = run_cli("index", world, "-o", str(tmp_path / "i.duckdb"), "-j", "0")
    assert result.returncode == 2 and "--jobs" in result.stderr and "Traceback" not in result.stderr


def test_files_go_to_the_workers_in_chunks_in_their_order(tmp_path: Path) -> None:
    from ctxscope.inspector.index.analysed import _CHUNK_BYTES, _CHUNK_FILES, _chunks
    from ctxscope.inspector.index.files import FileFacts

    def facts(k: int, size: int) -> FileFacts:
        return FileFacts(f"r{k}", f"{k}.jsonl", str(tmp_path / f"{k}.jsonl"), "h", size, 0, k)

    small = [facts(k, 1000) for k in range(_CHUNK_FILES + 3)]
    big = facts(999, 3 * _CHUNK_BYTES)  # larger than a chunk: alone in its own
    chunks = list(_chunks([*small[:2], big, *small[2:]]))
    assert [f for chunk in chunks for f in chunk] == [*small[:2], big, *small[2:]]
    assert chunks[0] == small[:2] and chunks[1] == [big]
    assert [len(c) for c in chunks[2:]] == [_CHUNK_FILES, 1]
    assert all(sum(f.size for f in c) <= _CHUNK_BYTES for c in chunks if len(c) > 1)


def test_a_given_connection_gets_its_threads_setting_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # DuckDB writes with one thread while workers analyse; a caller's connection keeps its own setting
    monkeypatch.setenv("CTXSCOPE_HOME", str(tmp_path / "home"))
    with connect(tmp_path / "given.duckdb") as con:
        con.execute("SET threads = 3")
        build_index(None, [_folder(tmp_path)], con=con, jobs=2)
        assert con.execute("SELECT current_setting('threads')").fetchone() == (3,)
        assert con.execute("SELECT count(*) FROM recordings").fetchone()[0] > 0


def test_indexing_a_few_files_starts_no_pool(tmp_path: Path) -> None:
    # below the pool's threshold the files are analysed in the command's process: neither
    # concurrent.futures nor multiprocessing is imported (re-indexing one appended recording pays
    # for neither)
    out, db = tmp_path / "modules.json", tmp_path / "few.duckdb"
    code = (
        "import atexit, json, sys\n"
        f"atexit.register(lambda: open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules))))\n"
        f"sys.argv = ['ctxscope', 'index', {str(FIXTURES / 'inspector' / 'chain.jsonl')!r}, '-o', {str(db)!r}]\n"
        "from ctxscope.cli import main\n"
        "main()\n"
    )
    env = {**os.environ, "CTXSCOPE_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1 recordings" in done.stdout
    modules = set(json.loads(out.read_text()))
    assert "duckdb" in modules and not {"concurrent.futures", "multiprocessing"} & modules


def test_workers_that_cannot_start_leave_the_work_to_the_command(tmp_path: Path) -> None:
    # A script with no `if __name__ == "__main__":` guard: each spawned worker runs it again, finds the
    # index locked by the script itself and dies before analysing anything. The pool breaks; the
    # command says so in one line and analyses every file itself: the same index as one job builds.
    folder = _folder(tmp_path)
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import sys\n"
        "from pathlib import Path\n"
        "from ctxscope.inspector.index import build_index\n"
        "stats = build_index(Path(sys.argv[1]), [Path(sys.argv[2])], jobs=2)\n"
        "print('added', stats.added, 'skipped', len(stats.skipped))\n"
    )
    env = {**os.environ, "CTXSCOPE_HOME": str(tmp_path / "home")}
    db = tmp_path / "broken.duckdb"
    done = subprocess.run(
        [sys.executable, str(script), str(db), str(folder)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("ctxscope: the index's worker")]
    assert len(lines) == 1 and lines[0].endswith("the rest is analysed in this process")
    one = build_index(tmp_path / "one.duckdb", [folder], jobs=1)
    assert done.stdout.split() == ["added", str(one.added), "skipped", str(len(one.skipped))]
    with connect(db) as a, connect(tmp_path / "one.duckdb") as b:
        assert tables(a) == tables(b)


def test_a_long_index_shows_its_progress_on_a_terminal_and_clears_it(tmp_path: Path) -> None:
    # the real command with its stderr on a pseudo-terminal: a progress line, redrawn in place, erased
    # before the summary; on a pipe (every other test here) the summary alone
    import pty
    import re
    import select

    folder = tmp_path / "many"
    fixtures = sorted(FIXTURES.rglob("*.jsonl"))
    for n in range(240):  # more than the 200 files after which the line is drawn however fast they go
        target = folder / f"c{n:03d}" / fixtures[n % len(fixtures)].name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(fixtures[n % len(fixtures)], target)
    master, slave = pty.openpty()
    env = {**os.environ, "CTXSCOPE_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "ctxscope.cli", "index", str(folder), "-o", str(tmp_path / "p.duckdb"), "-j", "1"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave, env=env) as proc:
        os.close(slave)
        seen = b""
        while True:  # bounded: the process ends, and the pty then reads as closed
            ready, _, _ = select.select([master], [], [], 120)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer of the pty is gone
                break
            if not chunk:
                break
            seen += chunk
        out = proc.stdout.read().decode() if proc.stdout else ""
        assert proc.wait(120) == 0
    os.close(master)
    text = seen.decode()
    drawn = re.findall(r"\rctxscope index: ([\d,]+) files indexed \(\d+ s\)", text)
    assert drawn, text[-2000:]
    assert text.rindex("\r\x1b[K") > text.rindex("files indexed")  # erased after its last redraw
    assert [int(n.replace(",", "")) for n in drawn] == sorted(int(n.replace(",", "")) for n in drawn)
    assert "recordings" in out and "added" in out and "\r" not in out


def test_a_machine_without_process_pools_indexes_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Where multiprocessing has no working semaphores (no /dev/shm, some sandboxes) the pool cannot be
    # made: Python raises as it does there, and the command says so once and indexes everything itself.
    import concurrent.futures

    def no_semaphores(*args: object, **kwargs: object) -> None:
        raise OSError(38, "Function not implemented")

    monkeypatch.setenv("CTXSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_semaphores)
    folder = _folder(tmp_path)
    two = build_index(tmp_path / "two.duckdb", [folder], jobs=2)
    err = capsys.readouterr().err
    assert err.count("ctxscope: the index's worker processes could not start ([Errno 38]") == 1
    one = build_index(tmp_path / "one.duckdb", [folder], jobs=1)
    assert (one.added, one.skipped) == (two.added, two.skipped)
    with connect(tmp_path / "one.duckdb") as a, connect(tmp_path / "two.duckdb") as b:
        assert tables(a) == tables(b)

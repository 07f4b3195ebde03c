"""`ctxscope query` only reads the index it was given: every way out of it (writing a file, reading one
elsewhere, an extension, the network, a setting that would undo the lock) is refused in one line and
leaves nothing behind (the real CLI over a real index and its real Parquet export)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from tests.cli_support import run_cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("query")
    db = root / "index.duckdb"
    built = run_cli("index", str(FIXTURES / "inspector" / "world.jsonl"), "-o", str(db), "--parquet", str(root / "pq"))
    assert built.returncode == 0, built.stderr
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP-SECRET-CONTENT\n")
    (outside / "rows.csv").write_text("a,b\nTOP-SECRET-CSV,2\n")
    return {"db": db, "pq": root / "pq", "outside": outside}


def _refused(source: Path, sql: str, *, words: str = "") -> str:
    result = run_cli("query", str(source), sql)
    assert result.returncode == 2, (sql, result.stdout)
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "TOP-SECRET" not in result.stdout + result.stderr
    assert words in result.stderr, result.stderr
    return result.stderr


@pytest.mark.parametrize("kind", ["db", "pq"])
def test_writes_reads_elsewhere_and_extensions_are_refused(index: dict[str, Path], kind: str) -> None:
    source, outside = index[kind], index["outside"]
    inside = source if source.is_dir() else source.parent
    targets = [outside / "copied.csv", inside / "copied.csv", outside / "attached.duckdb", outside / "export"]
    cases = {
        f"COPY (SELECT 1) TO '{targets[0]}'": "COPY statement is refused",
        f"COPY (SELECT * FROM turns) TO '{targets[1]}'": "COPY statement is refused",
        f"select 1; copy (select 1) to '{targets[0]}'": "COPY statement is refused",
        f"ATTACH '{targets[2]}'": "ATTACH statement is refused",
        f"EXPORT DATABASE '{targets[3]}'": "EXPORT statement is refused",
        "CREATE TABLE t AS SELECT 1": "CREATE statement is refused",
        "CREATE TEMP TABLE t AS SELECT 1": "CREATE statement is refused",
        "INSTALL httpfs": "LOAD statement is refused",
        "LOAD httpfs": "LOAD statement is refused",
        "SET enable_external_access = true": "SET statement is refused",
        # reading outside the index: the settings refuse it (the statement is a plain SELECT)
        f"SELECT * FROM read_text('{outside / 'secret.txt'}')": "disabled by configuration",
        f"SELECT * FROM read_csv('{outside / 'rows.csv'}')": "disabled by configuration",
        f"SELECT * FROM read_text('{inside}/../outside/secret.txt')": "disabled by configuration",
        "SELECT * FROM read_text('/etc/passwd')": "disabled by configuration",
        "SELECT * FROM glob('/etc/*')": "disabled by configuration",
    }
    for sql, words in cases.items():
        message = _refused(source, sql, words=words)
        if "statement is refused" in words:
            assert "open the index with DuckDB itself" in message
    for target in targets:
        assert not target.exists(), target
    # what it is for still works, with the lock on
    ok = run_cli("query", str(source), "SELECT count(*) AS n FROM turns")
    assert ok.returncode == 0 and "(1 row)" in ok.stdout, ok.stderr


@pytest.mark.parametrize("kind", ["db", "pq"])
def test_a_query_touches_no_network(index: dict[str, Path], kind: str) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    connections: list[object] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            connections.append(conn)
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        for sql in (
            f"SELECT * FROM read_parquet('http://127.0.0.1:{port}/x.parquet')",
            f"SELECT * FROM read_csv('http://127.0.0.1:{port}/x.csv')",
            f"SELECT * FROM read_text('http://127.0.0.1:{port}/x.txt')",
        ):
            _refused(index[kind], sql)
    finally:
        done.set()
        thread.join(5)
        server.close()
    assert connections == []

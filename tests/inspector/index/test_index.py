"""The cross-recording index: its counts are the analysis's, incremental equals full, Parquet
answers the same, bad files are skipped with one line (real recordings, real DuckDB files)."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.cache import cache_report
from ctxscope.inspector.analysis.composition import composition_report
from ctxscope.inspector.index import QUESTIONS, TABLES, build_index, export_parquet, open_index, run_sql
from ctxscope.inspector.index._duckdb import connect
from ctxscope.inspector.index.schema import EXPORTED, markdown
from ctxscope.inspector.reports.build import diff_report
from tests.cli_support import run_cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDINGS = sorted(FIXTURES.rglob("*.jsonl"))


def tables(con: Any, *, exported: bool = False) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, sorted (row order is not part of a table); only the exported columns if asked."""
    out = {}
    for name in TABLES:
        columns = ", ".join(f'"{c.name}"' for c in EXPORTED[name]) if exported else "*"
        out[name] = sorted(con.execute(f"SELECT {columns} FROM {name}").fetchall(), key=repr)
    return out


def rec_of(con: Any, path: Path) -> str:
    """The recording id the index gave the file at `path`."""
    return str(one(con, "SELECT recording FROM recordings WHERE path = ?", str(path.resolve())))


def by_name(con: Any, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """`rows` with each local path (as the questions show it) replaced by the recording's name."""
    names = con.execute("SELECT path, name FROM recordings ORDER BY length(path) DESC").fetchall()

    def swap(value: Any) -> Any:
        for path, name in names:
            if isinstance(value, str) and value.startswith(path):
                return name + value[len(path) :]
        return value

    return sorted((tuple(swap(v) for v in row) for row in rows), key=repr)


def one(con: Any, sql: str, *params: Any) -> Any:
    return con.execute(sql, list(params)).fetchone()[0]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_index_counts_what_the_analysis_counts(path: Path, tmp_path: Path) -> None:
    con = connect(tmp_path / "index.duckdb")
    build_index(None, [path], con=con)
    analysis = analyse_recording(path)
    rec = rec_of(con, path)
    rows = con.execute(
        "SELECT turn, thread, change_kind, counted_tokens, predicted_cached, status, model "
        "FROM turns WHERE recording = ? ORDER BY turn",
        [rec],
    ).fetchall()
    doc = diff_report(analysis).wire()
    assert rows == [
        (
            t["turn"],
            t["thread"],
            t["change"]["kind"],
            t["tokens"]["total"],
            t["tokens"]["predicted_cached"],
            t["status"],
            t["model"],
        )
        for t in doc["turns"]
    ]
    threads = con.execute("SELECT thread, turns FROM threads ORDER BY thread").fetchall()
    assert threads == sorted((t.name, len(t.turns)) for t in analysis.threads)
    compactions = [r.turn.number for r in analysis.turns if r.compaction is not None]
    assert [r[0] for r in con.execute("SELECT turn FROM compactions ORDER BY turn").fetchall()] == compactions
    composition = {(c.turn, k): v for c in composition_report(analysis).turns for k, v in c.by_kind.items()}
    got = {(t, k): v for t, k, v in con.execute("SELECT turn, kind, tokens FROM composition").fetchall()}
    assert got == composition
    breaks = [c.turn for c in cache_report(analysis) if c.brk is not None]
    assert [
        r[0]
        for r in con.execute(
            "SELECT turn FROM cache_breaks WHERE broke_at IS NOT NULL ORDER BY turn"
        ).fetchall()
    ] == breaks
    mode_goal = sum(len(r.mode_events) + len(r.goal_events) for r in analysis.turns)
    assert one(con, "SELECT count(*) FROM events WHERE kind IN ('mode', 'plan', 'goal')") == mode_goal
    offered = sum(len(r.turn.body.get("tools") or []) for r in analysis.turns)
    assert one(con, "SELECT count(*) FROM tools WHERE offered") == offered
    # every item a turn holds is one an items row covers (added at or before it, still held)
    for result in analysis.turns:
        if result.change.kind == "fork":
            continue  # a fork's shared items are its source thread's rows
        held = one(
            con,
            "SELECT count(DISTINCT position) FROM items WHERE thread = ? AND turn <= ? AND last_turn >= ?",
            result.turn.thread,
            result.turn.number,
            result.turn.number,
        )
        assert held == len(result.turn.items)
    con.close()


def _prefix(path: Path, exchanges: int) -> str:
    """The recording as it was on disk after its first `exchanges` exchanges."""
    out: list[str] = []
    seen = 0
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if json.loads(line).get("kind") == "exchange":
            if seen == exchanges:
                break
            seen += 1
        out.append(line)
    return "".join(out)


def test_appending_to_a_recording_adds_only_its_new_turns(tmp_path: Path) -> None:
    source = FIXTURES / "inspector" / "compaction.jsonl"
    folder = tmp_path / "recs"
    folder.mkdir()
    shutil.copy(FIXTURES / "inspector" / "world.jsonl", folder / "other.jsonl")
    growing = folder / "growing.jsonl"
    growing.write_text(_prefix(source, 3), encoding="utf-8")
    db = tmp_path / "index.duckdb"
    first = build_index(db, [folder])
    assert (first.added, first.turns_added) == (2, 3 + 3)
    with growing.open("a", encoding="utf-8") as stream:  # what the recorder does: append lines
        stream.write(source.read_text(encoding="utf-8")[len(_prefix(source, 3)) :])
    again = build_index(db, [folder])
    assert (again.updated, again.unchanged, again.turns_added, again.turns_deleted) == (1, 1, 2, 0)
    assert again.rows_inserted["turns"] == 2
    with connect(db) as con:  # only the new turns' items went in; the held ones got a new last_turn
        rec = rec_of(con, growing)
        new_items = one(con, "SELECT count(*) FROM items WHERE recording = ? AND turn > 3", rec)
        held = one(con, "SELECT count(*) FROM items WHERE recording = ? AND turn <= 3 AND last_turn > 3", rec)
    assert again.rows_inserted["items"] == new_items
    assert again.rows_updated["items"] == held > 0
    fresh = tmp_path / "fresh.duckdb"
    build_index(fresh, [folder])
    with connect(db) as a, connect(fresh) as b:
        assert tables(a) == tables(b)
        assert one(a, "SELECT count(*) FROM turns WHERE recording = ?", rec_of(a, growing)) == len(
            analyse_recording(source).turns
        )
    untouched = build_index(db, [folder])
    assert (untouched.unchanged, untouched.turns_added, sum(untouched.rows_inserted.values())) == (2, 0, 0)


def test_incremental_and_full_indexing_give_equal_tables(tmp_path: Path) -> None:
    folder = tmp_path / "recs"
    shutil.copytree(FIXTURES / "inspector", folder, ignore=shutil.ignore_patterns("*.py"))
    db = tmp_path / "index.duckdb"
    build_index(db, [folder])
    (folder / "fork.jsonl").unlink()  # removed: its rows go
    shutil.copy(folder / "chain.jsonl", folder / "chain-copy.jsonl")  # added
    (folder / "rewrite.jsonl").write_text((folder / "world.jsonl").read_text())  # replaced
    (folder / "tools_reordered.jsonl").touch()  # touched, unchanged
    stats = build_index(db, [folder])
    assert (stats.added, stats.updated, stats.removed) == (1, 1, 1)
    fresh = tmp_path / "fresh.duckdb"
    build_index(fresh, [folder])
    with connect(db) as a, connect(fresh) as b:
        assert tables(a) == tables(b)
        assert one(a, "SELECT count(*) FROM recordings WHERE name = 'fork.jsonl'") == 0
        assert one(a, "SELECT count(*) FROM turns WHERE recording NOT IN (SELECT recording FROM recordings)") == 0


def test_the_parquet_export_answers_the_same_queries(tmp_path: Path) -> None:
    db = tmp_path / "index.duckdb"
    build_index(db, [FIXTURES])
    parquet = tmp_path / "parquet"
    with connect(db) as con:
        counts = export_parquet(con, parquet)
        months = {m for (m,) in con.execute("SELECT DISTINCT strftime(day, '%Y-%m') FROM recordings").fetchall()}
    assert {p.name for p in (parquet / "turns").iterdir()} == {f"{m}.parquet" for m in months}
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in parquet.rglob("*.parquet"))
    with open_index(db) as a, open_index(parquet) as b:
        assert tables(a, exported=True) == tables(b, exported=True)
        assert {n: len(rows) for n, rows in tables(b).items()} == counts
        # nothing of this machine is in the export: no path, inode or mtime
        assert one(b, "SELECT count(*) FROM recordings WHERE path IS NOT NULL OR inode IS NOT NULL") == 0
        assert str(tmp_path) not in json.dumps(tables(b, exported=True), default=str)
        for question in QUESTIONS.values():  # the same answers, a recording named by its path or name
            assert by_name(a, run_sql(a, question.sql)[1]) == sorted(run_sql(b, question.sql)[1], key=repr)


def test_ctxscope_index_then_query_equals_what_diff_reports(tmp_path: Path) -> None:
    folder = tmp_path / "recs"
    shutil.copytree(FIXTURES / "inspector", folder, ignore=shutil.ignore_patterns("*.py"))
    (folder / "notes.jsonl").write_text('{"hello": "world"}\n')  # foreign
    (folder / "torn.jsonl").write_text((folder / "world.jsonl").read_text()[:-40])  # killed writer
    (folder / "empty.jsonl").write_text("")
    db = tmp_path / "index.duckdb"
    built = run_cli("index", str(folder), "-o", str(db), "--parquet", str(tmp_path / "pq"))
    assert built.returncode == 0, built.stderr
    skipped = built.stderr.splitlines()
    assert sorted(line.split(":")[0] for line in skipped) == [
        f"skipped {folder / 'empty.jsonl'}",
        f"skipped {folder / 'notes.jsonl'}",
    ]
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    total = 0
    compaction_turns: list[list[Any]] = []
    for path in sorted(folder.rglob("*.jsonl")):
        if path.name in ("notes.jsonl", "empty.jsonl"):
            continue
        diff = run_cli("diff", str(path), "--format", "json")
        assert diff.returncode == 0, diff.stderr
        turns = json.loads(diff.stdout)["turns"]
        total += len(turns)
        compaction_turns += [[path, t["turn"]] for t in turns if t["change"]["kind"] == "compaction"]
    for source, named in ((str(db), str), (str(tmp_path / "pq"), lambda p: p.relative_to(folder).as_posix())):
        counted = run_cli("query", source, "select count(*) AS n from turns", "--format", "json")
        assert json.loads(counted.stdout) == [{"n": total}]
        listed = run_cli("query", source, "--compactions", "--format", "json")
        assert sorted([r["recording"], r["turn"]] for r in json.loads(listed.stdout)) == sorted(
            [named(p), t] for p, t in compaction_turns
        )
    text = run_cli("query", str(db), "--compactions")
    assert "ctxscope inspect RECORDING --turn TURN" in text.stdout
    for option in QUESTIONS:
        assert run_cli("query", str(db), f"--{option}").returncode == 0


def test_texts_stay_out_unless_asked_for(tmp_path: Path) -> None:
    path = FIXTURES / "inspector" / "world.jsonl"
    with connect(tmp_path / "a.duckdb") as con:
        build_index(None, [path], con=con)
        assert one(con, "SELECT count(*) FROM items WHERE text IS NOT NULL") == 0
        assert "AGENTS" not in json.dumps(con.execute("SELECT world FROM turns").fetchall())
    with connect(tmp_path / "b.duckdb") as con:
        build_index(None, [path], con=con, with_text=True)
        assert one(con, "SELECT count(*) FROM items WHERE text IS NULL") == 0
        # the same index asked again without text drops every copied text
        build_index(None, [path], con=con)
        assert one(con, "SELECT count(*) FROM items WHERE text IS NOT NULL") == 0
        assert one(con, "SELECT count(*) FROM items") > 0


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "index.duckdb"
    cases = [
        (("index", str(tmp_path / "nope"), "-o", str(db)), "no such file or folder"),
        (("query", str(db), "select 1"), "no index at"),
        (("query", "--errors", "--compactions"), "one named question at a time"),
        (("query", "select 1", "--format", "xml"), "--format 'xml'"),
    ]
    for args, words in cases:
        result = run_cli(*args)
        assert result.returncode == 2 and words in result.stderr and len(result.stderr.splitlines()) == 1
    assert run_cli("index", str(FIXTURES / "inspector" / "world.jsonl"), "-o", str(db)).returncode == 0
    alone = run_cli("query", str(db))
    assert alone.returncode == 2 and "give a query after the index" in alone.stderr
    bad = run_cli("query", str(db), "select nope from turns")
    assert (
        bad.returncode == 2
        and bad.stderr.startswith("error: query failed:")
        and len(bad.stderr.splitlines()) == 1
    )
    monkeypatch.setitem(__import__("sys").modules, "duckdb", None)  # DuckDB not installed
    missing = run_cli("query", str(db), "select 1")
    assert missing.returncode == 2 and "pip install 'ctxscope[index]'" in missing.stderr


def test_docs_describe_every_table_and_column() -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "index.md").read_text(encoding="utf-8")
    for table in TABLES.values():
        for column in table.columns:
            assert f"| `{column.name}` | {column.type} |" in page, (table.name, column.name)
    assert markdown() in page  # regenerate the Tables section from ctxscope.inspector.index.schema.markdown()


def test_a_lone_surrogate_in_a_text_costs_one_character_not_the_batch(tmp_path: Path) -> None:
    from ctxscope.inspector.index.build import ensure_schema, insert_rows

    with connect(tmp_path / "a.duckdb") as con:
        ensure_schema(con)
        names = TABLES["events"].names
        values = {"recording": "r", "day": None, "thread": "T1", "turn": 1, "kind": "error", "name": "failed"}
        good = tuple({**values, "sentence": "fine"}.get(n) for n in names)
        bad = tuple({**values, "turn": 2, "sentence": "torn \udc80 text"}.get(n) for n in names)
        insert_rows(con, "events", [good, bad])
        assert con.execute("SELECT turn, sentence FROM events ORDER BY turn").fetchall() == [
            (1, "fine"),
            (2, "torn ? text"),
        ]

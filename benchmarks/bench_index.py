"""Benchmark: the cross-recording index over 1,000 recordings of 50 turns each.

Builds N distinct growing sessions (default 1,000 × 50 turns, the session of `bench_analysis.py`
with each recording's own texts) with the proxy's real writer, then times, in-process:

  index          `build_index` of the whole folder into a new DuckDB file (cold token cache)
  re-index       again with nothing changed (every file stat-ed, none read)
  one appended   again after one recording grew by one turn (the recorder's append)
  questions      each named question over the whole index (median of --repeat runs)
  parquet        the export by day, and each named question over the export

Run: .venv/bin/python -m benchmarks.bench_index [--recordings 1000] [--turns 50] [--repeat 5]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_analysis import build, median_s, write


def _session(turns: int, k: int) -> list[dict[str, Any]]:
    """One recording's bodies: the growing session, with texts of its own (no two files alike)."""
    text = json.dumps(build(turns)).replace("change function f", f"in module m{k} change function f")
    bodies: list[dict[str, Any]] = json.loads(text)
    return bodies


def _prefix(path: Path, exchanges: int) -> str:
    out: list[str] = []
    seen = 0
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if json.loads(line).get("kind") == "exchange":
            if seen == exchanges:
                break
            seen += 1
        out.append(line)
    return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recordings", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CTXSCOPE_HOME"] = str(Path(tmp) / "home")  # a cold token cache
        from ctxscope.inspector.index import QUESTIONS, build_index, export_parquet, open_index, run_sql
        from ctxscope.inspector.index._duckdb import connect

        folder = Path(tmp) / "recordings"
        folder.mkdir()
        start = time.perf_counter()
        for k in range(args.recordings):
            write(_session(args.turns if k else args.turns + 1, k), folder / f"rec-{k:04d}.jsonl")
        grown = folder / "rec-0000.jsonl"
        full = grown.read_text(encoding="utf-8")
        grown.write_text(_prefix(grown, args.turns), encoding="utf-8")  # one turn short, for now
        made_s = time.perf_counter() - start
        size = sum(p.stat().st_size for p in folder.iterdir()) / 1e6
        print(f"{args.recordings} recordings × {args.turns} turns ({size:.0f} MB, written in {made_s:.0f} s)")
        db = Path(tmp) / "index.duckdb"
        start = time.perf_counter()
        stats = build_index(db, [folder])
        index_s = time.perf_counter() - start
        print(
            f"  index              {index_s:8.1f} s   "
            f"({stats.turns_added} turns, {db.stat().st_size / 1e6:.0f} MB)"
        )
        again_s = median_s(lambda: build_index(db, [folder]), args.repeat)
        print(f"  re-index unchanged {again_s:8.3f} s")
        grown.write_text(full, encoding="utf-8")
        start = time.perf_counter()
        stats = build_index(db, [folder])
        append_s = time.perf_counter() - start
        print(
            f"  re-index, one appended {append_s:8.3f} s   "
            f"(+{stats.turns_added} turn, {stats.updated} updated)"
        )
        with open_index(db) as con:
            for name, question in QUESTIONS.items():
                q_s = median_s(lambda q=question: run_sql(con, q.sql), args.repeat)  # type: ignore[misc]
                print(f"  --{name:<16} {q_s * 1000:8.1f} ms")
        parquet = Path(tmp) / "parquet"
        with connect(db) as con:
            start = time.perf_counter()
            export_parquet(con, parquet)
            print(f"  parquet export     {time.perf_counter() - start:8.2f} s")
        with open_index(parquet) as con:
            for name, question in QUESTIONS.items():
                q_s = median_s(lambda q=question: run_sql(con, q.sql), args.repeat)  # type: ignore[misc]
                print(f"  parquet --{name:<14} {q_s * 1000:8.1f} ms")


if __name__ == "__main__":
    main()

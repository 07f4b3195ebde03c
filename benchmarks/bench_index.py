"""Benchmark: `ctxscope index` against its yardsticks, side by side in one run.

Builds N small recordings (default 3,000 of 2–5 turns, about 10,500 turns: the growing session of
`bench_analysis.py`, each recording with texts of its own) with the proxy's real writer, then runs
`--rounds` interleaved rounds, each a fresh process per figure (what a person waits on):

  analysis alone   every file through `analyse_recording` (cold token cache): the yardstick
  + rows built     the same plus each recording's rows (`recording_rows`: the turn documents, the
                   composition and cache reports), nothing written: what the index adds in Python
  index, cold      `ctxscope index DIR -o NEW --parquet NEW` (cold token cache), time and peak memory
                   (of the largest process, and of the command and its workers together: their
                   proportional set sizes summed from /proc);
                   its CPU time counts the workers'
  index, -j 1      the same analysed in the one process (no workers)
  import duckdb    `python -c "import duckdb"`: the yardstick of the re-index rows
  re-index         `ctxscope index DIR -o DB` again with nothing changed (every file stat-ed, none read;
                   the snapshot beside the index answers, DuckDB not imported), and the same without
                   the snapshot (the index itself asked, read-only)
  one appended     the same after one recording grew by one turn (the recorder's append): that file
                   alone analysed, its new turn's rows added

Every process reads compiled bytecode from a private cache (PYTHONPYCACHEPREFIX in the temporary
folder, filled before the rounds), as an installed package does; `--no-bytecode` compiles every
module from source in every process instead (what PYTHONDONTWRITEBYTECODE=1 does to a checkout with
no `__pycache__`: about +0.2 s on the re-index rows).

It prints each figure's median and the median of its per-round ratios to its yardstick (paired,
so a round on a busy machine slows both), by wall time and by CPU time (user + system, from
`os.wait4`: steadier on a loaded machine; targets: cold ≤ 1.3× the analysis and ≤ 300 MB; unchanged
≤ 1.5× and one appended ≤ 2× `import duckdb`), then the Parquet files per table and the named
questions over the index and over the export.

Run: .venv/bin/python -m benchmarks.bench_index [--recordings 3000] [--rounds 5]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_analysis import build, median_s, write

_ANALYSE = (
    "import sys; from pathlib import Path; "
    "from ctxscope.inspector.analysis.analyse import analyse_recording; "
    "[analyse_recording(p) for p in sorted(Path(sys.argv[1]).rglob('*.jsonl'))]"
)
_ROWS = (
    "import sys; from pathlib import Path; "
    "from ctxscope.inspector.analysis.analyse import analyse_recording; "
    "from ctxscope.inspector.index.rows import FileFacts, recording_rows; "
    "[recording_rows(analyse_recording(p), FileFacts('r', p.name, str(p), 'h', 0, 0, 0)) "
    "for p in sorted(Path(sys.argv[1]).rglob('*.jsonl'))]"
)

_WARM = (
    "import duckdb, ctxscope.cli, ctxscope.inspector.index.run, ctxscope.inspector.index.build, "
    "ctxscope.inspector.index.parquet, ctxscope.inspector.index.rows, ctxscope.inspector.analysis.analyse"
)
"""What the figures' processes import: compiled into the bytecode cache before the first round."""


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


def _tree_pss_mb(pid: int) -> float:
    """Proportional set size (MB) of `pid` and every process under it, summed: the memory they take
    together, a page two of them share counted once between them (/proc/PID/smaps_rollup); 0 once
    it is gone."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text()
            total += next(int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:"))
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError, StopIteration):
            continue
    return total / 1024  # smaps_rollup counts KiB


def _sample_peak(pid: int, peak: list[float], done: threading.Event) -> None:
    while not done.wait(0.02):
        peak[0] = max(peak[0], _tree_pss_mb(pid))


def _run(args: list[str], home: Path) -> tuple[float, float, float, float]:
    """(wall seconds, peak resident MB of the largest process, CPU seconds: user + system, peak MB of
    the process and its workers together, by proportional set size) of one process."""
    env = {**os.environ, "CTXSCOPE_HOME": str(home)}
    start = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak, done = [0.0], threading.Event()
    sampler = threading.Thread(target=_sample_peak, args=(proc.pid, peak, done), daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode:
        raise SystemExit(f"{' '.join(args)} failed: {err.strip()}")
    # ru_maxrss is in KiB on Linux: the largest of the process and the children it waited for
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, peak[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recordings", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5, help="runs per named question")
    parser.add_argument("--no-bytecode", action="store_true", help="compile from source in every process")
    args = parser.parse_args()
    ctxscope = str(Path(sys.executable).with_name("ctxscope"))
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.no_bytecode:
            os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
            os.environ.pop("PYTHONPYCACHEPREFIX", None)
        else:  # the child processes inherit this; one process fills the cache before the rounds
            os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
            os.environ["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
            _run([sys.executable, "-c", _WARM], tmp / "warm-home")
        folder = tmp / "recordings"
        folder.mkdir()
        start = time.perf_counter()
        for k in range(args.recordings):
            write(_session(2 + k % 4, k), folder / f"rec-{k:04d}.jsonl")
        grown = folder / "rec-0001.jsonl"  # 3 turns, and one short of that for the append
        full = grown.read_text(encoding="utf-8")
        short = _prefix(grown, 2)
        size = sum(p.stat().st_size for p in folder.iterdir()) / 1e6
        print(
            f"{args.recordings} recordings ({size:.0f} MB, written in {time.perf_counter() - start:.0f} s); "
            f"{args.rounds} interleaved rounds, one process per figure; bytecode "
            f"{'compiled in every process' if args.no_bytecode else 'cached'}"
        )
        keys = (
            "analysis",
            "rows",
            "index",
            "index_mb",
            "index_tree_mb",
            "index_one",
            "index_one_mb",
            "duckdb",
            "unchanged",
            "unchanged_db",
            "appended",
        )
        figures: dict[str, list[float]] = {k: [] for k in keys}
        cpu: dict[str, list[float]] = {k: [] for k in keys}
        """CPU seconds of the same processes: steadier than wall time on a shared, loaded machine."""

        def record(key: str, run: tuple[float, float, float, float]) -> None:
            figures[key].append(run[0])
            cpu[key].append(run[2])

        db = tmp / "index.duckdb"
        export = tmp / "parquet"
        for r in range(args.rounds):
            home = tmp / f"home-{r}"  # a cold token cache for both the yardstick and the index
            record("analysis", _run([sys.executable, "-c", _ANALYSE, str(folder)], tmp / f"a-home-{r}"))
            record("rows", _run([sys.executable, "-c", _ROWS, str(folder)], tmp / f"r-home-{r}"))
            db.unlink(missing_ok=True)
            shutil.rmtree(export, ignore_errors=True)
            cold = _run([ctxscope, "index", str(folder), "-o", str(db), "--parquet", str(export)], home)
            record("index", cold)
            figures["index_mb"].append(cold[1])
            figures["index_tree_mb"].append(cold[3])
            db.unlink(missing_ok=True)
            shutil.rmtree(export, ignore_errors=True)
            one_home = tmp / f"one-home-{r}"  # its own cold token cache
            alone = _run([ctxscope, "index", str(folder), "-o", str(db), "--parquet", str(export), "-j", "1"], one_home)
            record("index_one", alone)
            figures["index_one_mb"].append(alone[1])
            record("duckdb", _run([sys.executable, "-c", "import duckdb"], home))
            record("unchanged", _run([ctxscope, "index", str(folder), "-o", str(db)], home))
            db.with_name(db.name + ".files").unlink()  # the snapshot gone: the index itself is asked
            record("unchanged_db", _run([ctxscope, "index", str(folder), "-o", str(db)], home))
            grown.write_text(short, encoding="utf-8")
            _run([ctxscope, "index", str(folder), "-o", str(db)], home)  # back to one turn short
            grown.write_text(full, encoding="utf-8")
            record("appended", _run([ctxscope, "index", str(folder), "-o", str(db)], home))
        med = {k: statistics.median(v) for k, v in figures.items()}
        from ctxscope.inspector.index import QUESTIONS, open_index, run_sql

        with open_index(db) as con:
            turns = con.execute("SELECT count(*) FROM turns").fetchone()[0]
        print(f"  {turns} turns; medians (each round's figures in brackets)")

        def line(label: str, key: str, yard: str, target: str) -> None:
            ratio = statistics.median(a / b for a, b in zip(figures[key], figures[yard], strict=True))
            by_cpu = statistics.median(a / b for a, b in zip(cpu[key], cpu[yard], strict=True))
            print(
                f"  {label:<22} {med[key]:8.3f} s  {ratio:5.2f}× {yard:<8} (CPU {by_cpu:4.2f}×; target {target})"
                f"  [{each(key)}]"
            )

        def each(key: str) -> str:
            return " ".join(f"{v:.2f}" for v in figures[key])

        mid = {k: statistics.median(v) for k, v in cpu.items() if v}
        print(f"  {'analysis alone':<22} {med['analysis']:8.3f} s  (CPU {mid['analysis']:.1f} s)  [{each('analysis')}]")
        line("+ rows built", "rows", "analysis", "-")
        line("index, cold", "index", "analysis", "≤ 1.3×")
        line("  vs rows built", "index", "rows", "-")
        print(
            f"  {'  peak memory':<22} {med['index_mb']:8.0f} MB the largest process, {med['index_tree_mb']:.0f} MB"
            " all its processes together, PSS (target ≤ 300 MB)"
        )
        line("index, cold, -j 1", "index_one", "analysis", "-")
        print(f"  {'  peak memory':<22} {med['index_one_mb']:8.0f} MB")
        print(f"  {'  per turn':<22} {med['index'] / turns * 1000:8.2f} ms")
        print(f"  {'import duckdb':<22} {med['duckdb']:8.3f} s  (CPU {mid['duckdb']:.2f} s)  [{each('duckdb')}]")
        line("re-index, unchanged", "unchanged", "duckdb", "≤ 1.5×")
        line("  without the snapshot", "unchanged_db", "duckdb", "-")
        line("re-index, one appended", "appended", "duckdb", "≤ 2×")
        files = {p.name: len(list(p.glob("*.parquet"))) for p in sorted(export.iterdir())}
        print(f"  parquet files per table: {files}")
        with open_index(db) as con:
            for name, question in QUESTIONS.items():
                q_s = median_s(lambda q=question: run_sql(con, q.sql), args.repeat)  # type: ignore[misc]
                print(f"  --{name:<16} {q_s * 1000:8.1f} ms")
        with open_index(export) as con:
            for name, question in QUESTIONS.items():
                q_s = median_s(lambda q=question: run_sql(con, q.sql), args.repeat)  # type: ignore[misc]
                print(f"  parquet --{name:<14} {q_s * 1000:8.1f} ms")


if __name__ == "__main__":
    main()

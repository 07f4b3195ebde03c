"""Benchmark: how reading and `ctxscope diff --format json` grow with a growing session's length.

Writes the growing session of `bench_analysis` (every turn adds a user message, a tool call and its
output, an assistant message) at two lengths (default 1,000 and 5,000 turns), then per round runs, as
fresh processes, `read_recording` of each file and `ctxscope diff --format json` of each, one after the
other (interleaved; with `--baseline DIR` the same commands from another checkout too). Prints the
median wall time of each and the ratio long / short: linear growth is the ratio of the lengths (5×;
target ≤ 5.5× for diff, issue 36).

Run: .venv/bin/python -m benchmarks.bench_growth [--turns 1000 5000] [--rounds 5] [--baseline DIR] [--no-diff]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_analysis import build, write


def _run(args: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} failed: {done.stderr.decode()[-500:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, nargs=2, default=[1000, 5000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--no-diff", action="store_true", help="time reading only")
    options = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    checkouts = {"": here} | ({"base: ": options.baseline} if options.baseline else {})
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-") as tmp:
        env = {**os.environ, "PYTHONPYCACHEPREFIX": f"{tmp}/pycache", "CTXSCOPE_HOME": f"{tmp}/home"}
        files = {}
        for turns in options.turns:
            files[turns] = Path(tmp) / f"growing-{turns}.jsonl"
            write(build(turns), files[turns])
            print(f"{turns} turns: {files[turns].stat().st_size / 1e6:.1f} MB")
        cases: dict[str, tuple[list[str], Path]] = {}
        for label, cwd in checkouts.items():
            for turns, path in files.items():
                read = f"from ctxscope.proxy.store import read_recording; read_recording({str(path)!r})"
                cases[f"{label}read {turns}"] = (["-c", read], cwd)
                if not options.no_diff:
                    cases[f"{label}diff {turns}"] = (["-m", "ctxscope.cli", "diff", "--format", "json", str(path)], cwd)
        for args, cwd in cases.values():  # bytecode and token-count caches
            _run(args, env, cwd)
        times: dict[str, list[float]] = {name: [] for name in cases}
        print(f"load average before {os.getloadavg()[0]:.2f}, {options.rounds} rounds")
        for _ in range(options.rounds):
            for name, (args, cwd) in cases.items():
                times[name].append(_run(args, env, cwd))
        print(f"load average after  {os.getloadavg()[0]:.2f}")
    short, long = options.turns
    for name, found in times.items():
        print(f"{name:<20} {statistics.median(found):>8.2f} s")
    for name in times:
        if name.endswith(f" {short}"):
            stem = name[: -len(str(short))]
            ratio = statistics.median(times[f"{stem}{long}"]) / statistics.median(times[name])
            print(f"{stem}{long} / {short}: {ratio:.2f}× for {long / short:.0f}× the turns")


if __name__ == "__main__":
    main()

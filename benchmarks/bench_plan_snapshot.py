"""Benchmark: what watching a planning shell command costs (the workspace snapshot of plan mode).

Builds workspaces of N files (spread over directories of 100, plus a `.git` and a `__pycache__` that
the walk skips), then times, as medians of several runs:

  snapshot       take_snapshot(root): the stat walk done before and after each planning shell call
  compare        changed_paths(before, after) with one file changed
  git status     `git status --porcelain`, the fallback above the file limit (for the ratio)
  bare command   running `true` through a shell (what a shell call costs at least, for scale)

Run: .venv/bin/python -m benchmarks.bench_plan_snapshot [--files 1000 10000 20000] [--repeat 5]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ctxscope.harness.modes.plan.workspace import changed_paths, take_snapshot


def build(root: Path, files: int) -> None:
    for n in range(files):
        directory = root / f"d{n // 100:04d}"
        directory.mkdir(exist_ok=True)
        (directory / f"f{n}.txt").write_text(f"{n}\n")
    for skipped in (".git/objects", "__pycache__"):
        (root / skipped).mkdir(parents=True, exist_ok=True)
        for n in range(200):
            (root / skipped / f"x{n}").write_text("x")


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[1_000, 10_000, 20_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    bare = median_ms(lambda: subprocess.run(["bash", "-c", "true"], check=True), args.repeat)
    print(f"bare shell command: {bare:.1f} ms")
    print(f"{'files':>7} {'snapshot ms':>12} {'compare ms':>11} {'git status ms':>14} {'snap/git':>9}")
    for files in args.files:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            build(root, files)
            subprocess.run(["git", "init", "-q", str(root)], check=True)
            snap = median_ms(lambda root=root: take_snapshot(root), args.repeat)
            before = take_snapshot(root)
            (root / "d0000" / "f0.txt").write_text("changed\n")
            after = take_snapshot(root)
            compare = median_ms(lambda b=before, a=after: changed_paths(b, a), args.repeat)
            status = median_ms(
                lambda root=root: subprocess.run(
                    ["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True
                ),
                args.repeat,
            )
            print(f"{files:>7} {snap:>12.1f} {compare:>11.2f} {status:>14.1f} {snap / status:>9.2f}")


if __name__ == "__main__":
    main()

"""Benchmark: `ctxscope diff` / `ctxscope show` start-up on a small recording, cold and warm.

Records the demo session once (`ctxscope demo`, 7 turns, offline), then runs each report as a fresh
process, five times each way, and prints median and worst wall time and peak memory (the child's
max RSS from `os.wait4`):

  cold   a new, empty CTXSCOPE_HOME every run: no token counts cached, the encoding is loaded
         (importing and loading o200k_base is ~0.5 s and ~100 MB of the cold figures)
  warm   the same CTXSCOPE_HOME every run: token counts come from the per-user cache, no encoding

Every process reads compiled bytecode from a private cache (PYTHONPYCACHEPREFIX in the temporary
directory), as an installed package does; `--no-bytecode` compiles every module from source on
every run instead (what PYTHONDONTWRITEBYTECODE=1 does to a checkout: +0.1 to 0.2 s here).

The target (issue 12) is warm `diff`/`show` in <= 0.5 s and <= 100 MB. The machine is shared, so
the load average is printed before and after; compare branches by running this back to back in
each checkout (`git worktree add --detach /tmp/base main`, then run it from /tmp/base with this
venv's python: the checkout's own packages come first on sys.path).

Run: .venv/bin/python -m benchmarks.bench_report_startup [--repeat 5]
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


def _run(
    args: list[str], home: Path, command: tuple[str, ...] = ("-m", "ctxscope.cli")
) -> tuple[float, float]:
    """(seconds, peak MB) of one `python COMMAND ARGS` process (by default `ctxscope ARGS`)."""
    env = {**os.environ, "CTXSCOPE_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "100"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *command, *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join([*command, *args])} failed ({proc.returncode})")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # ru_maxrss: KB on Linux


def _row(name: str, mode: str, runs: list[tuple[float, float, float]]) -> None:
    seconds, megabytes, cpu = ([r[k] for r in runs] for k in range(3))
    print(
        f"{name:<22} {mode:<5} {statistics.median(seconds):>9.2f} {max(seconds):>8.2f} "
        f"{statistics.median(megabytes):>10.0f} {max(megabytes):>9.0f} {statistics.median(cpu):>13.2f}"
    )


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} cores)"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-bytecode", action="store_true", help="compile from source in every run")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-") as tmp:
        root = Path(tmp)
        if options.no_bytecode:
            os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
            os.environ.pop("PYTHONPYCACHEPREFIX", None)
        else:  # the child processes inherit this; the first runs fill the cache
            os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
            os.environ["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        recording = root / "demo.jsonl"
        _run(["demo", "--workdir", str(root / "work"), "--capture", str(recording)], root / "demo-home")
        print(f"recording: the demo session, {recording.stat().st_size:,} bytes, 7 turns")
        print(f"bytecode: {'compiled every run' if options.no_bytecode else 'cached'}; before: {_load()}")
        print(
            f"{'report':<22} {'mode':<5} {'median s':>9} {'worst s':>8} {'median MB':>10} {'worst MB':>9}"
            f" {'median cpu s':>13}"
        )
        _row("python -c pass", "-", [_run([], root, ("-c", "pass")) for _ in range(options.repeat)])
        for name, args in (
            ("diff", ["diff", str(recording)]),
            ("show --turn 4", ["show", str(recording), "-t", "4"]),
            ("compare (itself)", ["compare", str(recording), str(recording)]),
        ):
            warm_home = root / "warm-home"
            _run(args, warm_home)  # fills the warm cache
            for mode in ("cold", "warm"):
                runs = [
                    _run(args, root / f"cold-{name}-{i}" if mode == "cold" else warm_home)
                    for i in range(options.repeat)
                ]
                _row(name, mode, runs)
        print(f"after: {_load()}")


if __name__ == "__main__":
    main()

"""Benchmark: how reading and `ctxscope diff --format json` grow with a growing session's length.

Takes the growing session of `bench_analysis` (every turn adds a user message, a tool call and its
output, an assistant message) at two lengths (default 1,000 and 5,000 turns; written once with the
real writer and kept under ~/.cache/ctxscope-bench, `bench_analysis.cached_session`), then per round
runs, as fresh processes, `read_recording` of each file, `ctxscope diff --format json`, `ctxscope
report` (the HTML report) and a cold `ctxscope index` of each, one after the other (interleaved; with
`--baseline DIR` the same commands from another checkout too). Prints the median wall time of each
and peak memory, and the ratio long / short: linear growth is the ratio of the lengths (5×; target ≤ 5.5× for diff,
issue 36).

Run: .venv/bin/python -m benchmarks.bench_growth [--turns 1000 5000] [--rounds 5] [--baseline DIR]
     [--only read diff report index]
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
from itertools import count
from pathlib import Path

from benchmarks.bench_analysis import cached_session

STEPS = ("read", "diff", "report", "index")


def _hwm_mb(pid: int) -> float:
    """The process's peak resident set so far (VmHWM), 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Wall time, CPU time (user + system) and peak resident memory (MB; VmHWM read every 20 ms
    until it exits: of the process itself, not of an index's workers) of one fresh process."""
    # a cold index each time: a fresh database file
    args = [a.replace("{fresh}", str(next(_FRESH))) for a in args]
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, *args], env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errors)
        peak = 0.0
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _hwm_mb(child.pid))
            time.sleep(0.02)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            errors.seek(0)
            raise SystemExit(f"python {' '.join(args)} failed: {errors.read().decode()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, peak


_FRESH = count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, nargs=2, default=[1000, 5000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--only", nargs="+", choices=STEPS, default=list(STEPS), help="the steps to time")
    options = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    checkouts = {"": here} | ({"base: ": options.baseline} if options.baseline else {})
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-") as tmp:
        # bytecode written to the private cache and read back (PYTHONDONTWRITEBYTECODE would keep it empty)
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env = {**inherited, "PYTHONPYCACHEPREFIX": f"{tmp}/pycache", "CTXSCOPE_HOME": f"{tmp}/home"}
        files = {}
        for turns in options.turns:
            files[turns] = cached_session(turns)
            print(f"{turns} turns: {files[turns].stat().st_size / 1e6:.1f} MB ({files[turns]})")
        cases: dict[str, tuple[list[str], Path]] = {}
        cli = ["-m", "ctxscope.cli"]
        for label, cwd in checkouts.items():
            for turns, path in files.items():
                read = f"from ctxscope.proxy.store import read_recording; read_recording({str(path)!r})"
                steps = {
                    "read": ["-c", read],
                    "diff": [*cli, "diff", "--format", "json", str(path)],
                    "report": [*cli, "report", str(path), "-o", f"{tmp}/report-{turns}.html"],
                    "index": [*cli, "index", str(path), "-o", f"{tmp}/index-{turns}-{{fresh}}.duckdb"],
                }
                for step in options.only:
                    cases[f"{label}{step} {turns}"] = (steps[step], cwd)
        for args, cwd in cases.values():  # bytecode and token-count caches
            _run(args, env, cwd)
        times: dict[str, list[float]] = {name: [] for name in cases}
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        peak: dict[str, list[float]] = {name: [] for name in cases}
        print(f"load average before {os.getloadavg()[0]:.2f}, {options.rounds} rounds")
        for _ in range(options.rounds):
            for name, (args, cwd) in cases.items():
                wall, used, most = _run(args, env, cwd)
                times[name].append(wall)
                cpu[name].append(used)
                peak[name].append(most)
        print(f"load average after  {os.getloadavg()[0]:.2f}")
    short, long = options.turns
    print(f"{'':<20} {'wall':>8}   {'cpu':>8}   {'peak':>8}    (medians)")
    for name, found in times.items():
        print(
            f"{name:<20} {statistics.median(found):>8.2f} s {statistics.median(cpu[name]):>8.2f} s "
            f"{statistics.median(peak[name]):>8.0f} MB"
        )
    for name in times:
        if name.endswith(f" {short}"):
            stem = name[: -len(str(short))]
            ratio = statistics.median(times[f"{stem}{long}"]) / statistics.median(times[name])
            cpu_ratio = statistics.median(cpu[f"{stem}{long}"]) / statistics.median(cpu[name])
            print(f"{stem}{long} / {short}: {ratio:.2f}× wall, {cpu_ratio:.2f}× cpu for {long / short:.0f}× the turns")


if __name__ == "__main__":
    main()

"""Benchmark: `ctxscope --help` and `ctxscope info` start-up against the import yardstick.

The yardstick is `python -c "import pydantic, typer, rich"` in the same venv: the libraries every
ctxscope command needs before it does anything. Each round runs the yardstick, `ctxscope --help` and
`ctxscope info` on a 4-turn capture (`tests/fixtures/inspector/chain.jsonl`) as fresh processes, one
after the other (interleaved, so load on the shared machine falls on all three alike), and the medians
over the rounds are printed side by side with each command's ratio to the yardstick, for wall time and
for CPU time (user + system of the child, from `os.wait4`; steadier than wall time on a loaded machine).

Bytecode comes from a private cache (PYTHONPYCACHEPREFIX in a temporary directory, warmed by one
untimed round), as an installed package has it. Target (issue 36): both ≤ 2× the yardstick.

Run: .venv/bin/python -m benchmarks.bench_startup [--rounds 7] [--floors] [--baseline DIR]
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

CAPTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "inspector" / "chain.jsonl"

CASES: dict[str, list[str]] = {
    "yardstick (import pydantic, typer, rich)": ["-c", "import pydantic, typer, rich"],
    "ctxscope --help": ["-m", "ctxscope.cli", "--help"],
    "ctxscope info (4 turns)": ["-m", "ctxscope.cli", "info", str(CAPTURE)],
}
FLOORS: dict[str, list[str]] = {
    "floor: one pydantic model validated": [
        "-c",
        "from pydantic import BaseModel\nclass A(BaseModel):\n    x: int\nA(x=1)",
    ],
    "floor: the capture read, summarised": [
        "-c",
        "from ctxscope.proxy.store import read_recording\n"
        "from ctxscope.proxy.store.summary import summarise\n"
        f"summarise(read_recording({str(CAPTURE)!r}))",
    ],
}
"""What `info` cannot go below while the reader's record types are pydantic models (`--floors`): the
yardstick's `import pydantic` is lazy and builds no model; a recording read builds and validates them."""


def _run(args: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `python ARGS` process (in CWD: its checkout's packages first)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"python {' '.join(args)} failed")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout (e.g. `git worktree add --detach /tmp/base main`): its commands run "
        "interleaved with this one's, as `base: …` rows",
    )
    parser.add_argument("--floors", action="store_true", help="also time what `info` cannot go below (FLOORS)")
    options = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    cases = {name: (args, here) for name, args in CASES.items()}
    if options.floors:
        cases |= {name: (args, here) for name, args in FLOORS.items()}
    if options.baseline is not None:
        cases |= {f"base: {name}": (args, options.baseline) for name, args in CASES.items() if "ctxscope" in name}
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-") as tmp:
        # Without PYTHONDONTWRITEBYTECODE (set on the dev machines): with it the warm-up writes nothing to
        # the private cache and every run compiles ctxscope from source (1.0-1.3 s of `info` against
        # 0.33 s read from bytecode), while the yardstick's libraries read the bytecode pip installed.
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env = {
            **inherited,
            "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache"),
            "CTXSCOPE_HOME": str(Path(tmp) / "home"),
            "NO_COLOR": "1",
            "COLUMNS": "100",
        }
        for args, cwd in cases.values():  # warm the bytecode cache and the token-count cache
            _run(args, env, cwd)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        print(f"load average before {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores), {options.rounds} rounds")
        for _ in range(options.rounds):
            for name, (args, cwd) in cases.items():
                runs[name].append(_run(args, env, cwd))
        print(f"load average after  {os.getloadavg()[0]:.2f}")
    base_wall, base_cpu = (statistics.median(r[k] for r in runs[next(iter(CASES))]) for k in range(2))
    print(f"{'':<42} {'wall s':>8} {'× yard':>7} {'cpu s':>8} {'× yard':>7}")
    for name, found in runs.items():
        wall, cpu = (statistics.median(r[k] for r in found) for k in range(2))
        print(f"{name:<42} {wall:>8.3f} {wall / base_wall:>7.2f} {cpu:>8.3f} {cpu / base_cpu:>7.2f}")


if __name__ == "__main__":
    main()

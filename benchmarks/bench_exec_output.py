"""Benchmark: a command that never stops writing, through the real agent (`{"cmd": "yes",
"yield_time_ms": 3000}`): the agent's peak resident memory (VmHWM, read from /proc while it runs), the
call's own wall time (its output's `Wall time:` line) against its yield time, and what it read.

Before the output was bounded while read, this took the agent to 3.4 GB and the call to 14.8 s.
Run: .venv/bin/python -m benchmarks.bench_exec_output [--repeat 3] [--yield-ms 3000]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _run(home: Path, script: Path, cwd: Path) -> tuple[int, float, int, float]:
    """(peak kB, the call's wall time s, tokens counted, the whole run s)."""
    argv = [sys.executable, "-m", "ctxscope.cli", "agent", "--provider", "script", "--script", str(script)]
    argv += ["-p", "go", "--no-capture", "--cwd", str(cwd)]
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, env={**os.environ, "CTXSCOPE_HOME": str(home)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as status:
                peak = max([peak, *(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))])
        except OSError:
            pass
        time.sleep(0.02)
    whole = time.monotonic() - start
    output = ""
    for session in (home / "sessions").glob("*.jsonl"):
        for line in session.read_text().splitlines():
            entry = json.loads(line)
            item = entry["payload"].get("item") if entry["type"] == "response_item" else None
            if item and item.get("type") == "function_call_output":
                output = item["output"]
        session.unlink()
    wall = float(re.search(r"Wall time: ([\d.]+) seconds", output)[1])  # type: ignore[index]
    tokens = int(re.search(r"Original token count: (\d+)", output)[1])  # type: ignore[index]
    return peak, wall, tokens, whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--yield-ms", type=int, default=3000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "home").mkdir()
        (root / "repo").mkdir()
        calls = {"yes": "yes", "echo (baseline)": "echo hi"}
        print(f"{'command':<18} {'peak MB':>8} {'call s':>7} {'yield s':>7} {'read MB':>8} {'run s':>6}")
        for name, cmd in calls.items():
            call = {"name": "exec_command", "arguments": {"cmd": cmd, "yield_time_ms": args.yield_ms}}
            script = root / "s.json"
            responses = [{"output": [{"function_call": call}]}, {"text": "done"}]
            script.write_text(json.dumps({"format": "ctxscope-script", "version": 1, "responses": responses}))
            for _ in range(args.repeat):
                peak, wall, tokens, whole = _run(root / "home", script, root / "repo")
                print(
                    f"{name:<18} {peak / 1024:>8.1f} {wall:>7.2f} {args.yield_ms / 1000:>7.2f} "
                    f"{tokens * 4 / 1e6:>8.1f} {whole:>6.1f}"
                )


if __name__ == "__main__":
    main()

"""Benchmark: `ctxscope context` and `ctxscope cache` on a long recording vs `ctxscope diff --format json`.

Builds the growing Codex-like session of `bench_analysis.py` (default 1,000 turns), writes it with
the proxy's real writer, warms the token cache once (as any second look at a recording is), then
times each command as a subprocess (start-up included), medians side by side with their ratio to
`diff --format json` (the target: within 1.5x).

Run: .venv/bin/python -m benchmarks.bench_context [--turns 1000] [--repeat 5]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_analysis import build, median_s, write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bench-{args.turns}.jsonl"
        write(build(args.turns), path)

        def command(*words: str) -> object:
            cmd = [sys.executable, "-m", "ctxscope.cli", *words, str(path), "--format", "json"]
            return subprocess.run(cmd, capture_output=True, check=True)

        command("diff")  # warm the per-user token cache: every command below reads it
        diff_s = median_s(lambda: command("diff"), args.repeat)
        context_s = median_s(lambda: command("context"), args.repeat)
        cache_s = median_s(lambda: command("cache"), args.repeat)
        size = path.stat().st_size / 1e6
        print(f"{args.turns} turns, {size:.2f} MB; medians of {args.repeat} runs, warm cache")
        print(f"  diff --format json     {diff_s:7.3f} s")
        print(f"  context --format json  {context_s:7.3f} s   ({context_s / diff_s:.2f}x)")
        print(f"  cache --format json    {cache_s:7.3f} s   ({cache_s / diff_s:.2f}x)")


if __name__ == "__main__":
    main()

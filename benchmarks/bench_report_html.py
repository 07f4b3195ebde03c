"""Benchmark: the self-contained HTML report of a long recording: its size, the time to build it, and the
time headless Chromium takes to draw the first turn after opening it from disk.

Builds the growing Codex-like session of `bench_analysis.py` (default 1,000 turns), writes it with the
proxy's real writer, runs `ctxscope report` on it (a subprocess, start-up included), then opens the
page in Debian's chromium through Playwright, offline, and waits until turn 1 is on screen. Targets:
the page at most 2x the recording's size, the first turn drawn within 2 s.

Run: .venv/bin/python -m benchmarks.bench_report_html [--turns 1000] [--repeat 3]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_analysis import build, median_s, write


def first_draw(page_path: Path, repeat: int) -> float:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "chromium"
    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        try:
            for _ in range(repeat):
                context = browser.new_context(offline=True)
                page = context.new_page()
                start = time.perf_counter()
                page.goto(page_path.as_uri())
                page.wait_for_function("document.getElementById('status').textContent.startsWith('turn 1 ')")
                times.append(time.perf_counter() - start)
                context.close()
        finally:
            browser.close()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bench-{args.turns}.jsonl"
        write(build(args.turns), path)
        page = Path(tmp) / "report.html"

        def report() -> object:
            cmd = [sys.executable, "-m", "ctxscope.cli", "report", str(path), "-o", str(page)]
            return subprocess.run(cmd, capture_output=True, check=True)

        built_s = median_s(report, args.repeat)
        ratio = page.stat().st_size / path.stat().st_size
        drawn_s = first_draw(page, args.repeat)
        print(f"{args.turns} turns; medians of {args.repeat} runs")
        print(f"  recording            {path.stat().st_size / 1e6:7.2f} MB")
        print(f"  report.html          {page.stat().st_size / 1e6:7.2f} MB   ({ratio:.2f}x the recording)")
        print(f"  ctxscope report      {built_s:7.3f} s")
        print(f"  first turn drawn     {drawn_s:7.3f} s   (headless chromium, from disk, offline)")


if __name__ == "__main__":
    main()

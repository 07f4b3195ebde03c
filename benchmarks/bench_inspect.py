"""Benchmark: the inspector TUI on a long recording vs `ctxscope diff --format json` on the same file.

Builds the growing Codex-like session of `bench_analysis.py` (default 1,000 turns), writes it with
the proxy's real writer, then measures, as medians:

  diff json (cli)     `ctxscope diff FILE --format json` as a subprocess (start-up included)
  diff json (in-proc) read + analyse + report + json.dumps in this process
  open                the app headless (120x40) from start until the first turn is on screen
                      (drawn from the first stage: `loader.FIRST_STAGE` requests analysed)
  complete            from start until every turn is analysed and on the timeline
  switch              one step down the timeline until the new turn's diff is on screen
  jump                palette-free go-to across the recording (turn 1 -> N/2 -> N)

Run: .venv/bin/python -m benchmarks.bench_inspect [--turns 1000] [--repeat 3] [--switches 20]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_analysis import build, median_s, write
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.tokens import get_tokenizer
from ctxscope.inspector.reports import diff_report
from ctxscope.inspector.tui.app import InspectorApp
from ctxscope.inspector.tui.screens.main import MainScreen
from ctxscope.inspector.tui.snapshot import settle
from ctxscope.inspector.tui.widgets import LinesView, Timeline


async def _shown(app: InspectorApp, number: int) -> None:
    """Wait until turn `number`'s view is on screen."""
    while True:
        screen = app.screen
        if isinstance(screen, MainScreen) and screen.opened:  # composed, first turns drawn
            lines = screen.query_one("#turn", LinesView).lines
            if lines and lines[0].text.startswith(f"Turn {number} "):
                return
        await asyncio.sleep(0.001)


async def tui_times(path: Path, switches: int) -> dict[str, float]:
    """Open time, median switch time and go-to time of one app run."""
    start = time.perf_counter()
    app = InspectorApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _shown(app, 1)
        opened = time.perf_counter() - start
        screen = app.screen
        while not isinstance(screen, MainScreen) or screen.pending:
            await asyncio.sleep(0.001)
            screen = app.screen
        complete = time.perf_counter() - start
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        timeline = screen.query_one(Timeline)
        steps = []
        for n in range(2, switches + 2):
            t = time.perf_counter()
            timeline.action_cursor_down()  # what the down key runs (Pilot's own pauses left out)
            await _shown(app, n)
            steps.append(time.perf_counter() - t)
        last = len(screen.inspector.analysis.turns)
        jumps = []
        for target in (last // 2, last, 1):
            t = time.perf_counter()
            screen.go_to_turn(target)
            await _shown(app, target)
            jumps.append(time.perf_counter() - t)
    return {
        "open": opened,
        "complete": complete,
        "switch": statistics.median(steps),
        "jump": statistics.median(jumps),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--switches", type=int, default=20)
    args = parser.parse_args()
    get_tokenizer()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bench-{args.turns}.jsonl"
        write(build(args.turns), path)

        def cli() -> object:
            cmd = [sys.executable, "-m", "ctxscope.cli", "diff", str(path), "--format", "json"]
            return subprocess.run(cmd, capture_output=True, check=True)

        def in_process() -> object:
            return json.dumps(diff_report(analyse_recording(path)), default=str)

        cli_s = median_s(cli, args.repeat)
        inproc_s = median_s(in_process, args.repeat)
        runs = [asyncio.run(tui_times(path, args.switches)) for _ in range(args.repeat)]
        opened = statistics.median(r["open"] for r in runs)
        complete = statistics.median(r["complete"] for r in runs)
        switch = statistics.median(r["switch"] for r in runs)
        jump = statistics.median(r["jump"] for r in runs)
        print(f"{args.turns} turns, {path.stat().st_size / 1e6:.2f} MB; medians of {args.repeat} runs")
        print(f"  diff json (cli)      {cli_s:7.3f} s")
        print(f"  diff json (in-proc)  {inproc_s:7.3f} s")
        print(f"  tui open             {opened:7.3f} s   ({opened / cli_s:.2f}x the cli diff)")
        print(f"  tui all turns        {complete:7.3f} s")
        print(f"  tui turn switch      {switch * 1000:7.1f} ms  (median of {args.switches} steps)")
        print(f"  tui go to turn       {jump * 1000:7.1f} ms  (1 -> N/2 -> N -> 1)")


if __name__ == "__main__":
    main()

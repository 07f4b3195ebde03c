"""Benchmark: how soon `ctxscope inspect FILE` shows its first turn, and its peak memory, on
recordings of 1,000 and 5,000 growing turns and on a ~1 GB one (10,000 turns of 100 KB tool output,
in threads of 20): `open_recordings.py` writes them with the proxy's writer, cached by parameters.

Each round runs the real command in tmux (120x40) for each recording in turn (interleaved) and takes:

  screen      from spawning the command until tmux shows turn 1's timeline row and its view
  in-app      from the app's mount until the first turn's view is drawn (`CTXSCOPE_OPEN_CLOCK`)
  rss first   the process's peak resident memory (VmHWM) when the first turn is on screen
  all         (with --complete) until every request is analysed and the header stops saying
              "analysing", and the peak memory by then

Reported as medians of the rounds (default 5). `--baseline DIR` runs another checkout's source
(`git archive main | tar -x -C DIR`) with this venv the same way, interleaved, side by side.

Run: .venv/bin/python -m benchmarks.bench_open [--rounds 5] [--complete] [--sizes 1000,5000,large]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from benchmarks.open_recordings import growing, large
from ctxscope.inspector.tui.open_clock import ENV

POLL_S = 0.01
WAIT_S = 600.0


@dataclass
class Run:
    screen: float
    in_app: float | None
    rss_first_mb: float
    complete: float | None = None
    rss_complete_mb: float | None = None


def _tmux(socket: Path, *args: str) -> str:
    tmux = shutil.which("tmux")
    if tmux is None:
        raise SystemExit("bench_open needs tmux (the real command in a real terminal)")
    done = subprocess.run([tmux, "-S", str(socket), *args], capture_output=True, text=True, check=False)
    return done.stdout


def _peak_rss_mb(pid: int) -> float:
    """VmHWM of `pid`: its peak resident set so far."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _dead(socket: Path, name: str) -> bool:
    """The command ended (crashed) or the session is gone."""
    return _tmux(socket, "display-message", "-p", "-t", name, "#{pane_dead}").strip() != "0"


def _first_turn_shown(screen: str) -> bool:
    """The header names turn 1 and the turn view has drawn its first line."""
    return "turn 1 of" in screen and "Turn 1 " in screen


def _clock(path: Path) -> dict[str, float]:
    steps: dict[str, float] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            step, when = line.split()
            steps.setdefault(step, float(when))
    return steps


def measure(tree: str | None, recording: Path, *, complete: bool) -> Run:
    """One run of `ctxscope inspect recording` in a fresh tmux server (`tree`: another checkout's
    source, put first on the path)."""
    with tempfile.TemporaryDirectory() as tmp:
        socket, clock = Path(tmp) / "tmux.sock", Path(tmp) / "clock"
        name = f"open-{uuid.uuid4().hex[:8]}"
        command = (
            f"exec env -u COLUMNS -u LINES TERM=xterm-256color {ENV}={clock} "
            + (f"PYTHONPATH={tree} " if tree else "")
            + f"{sys.executable} -m ctxscope.cli inspect {recording}"
        )
        spawned = time.time()
        # started in the tree it runs (`-m` puts the working directory first on the path)
        where = tree or str(Path(__file__).resolve().parents[1])
        _tmux(socket, "new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", where, command)
        try:
            _tmux(socket, "set-option", "-t", name, "remain-on-exit", "on")
            pid = int(_tmux(socket, "display-message", "-p", "-t", name, "#{pane_pid}").strip())
            deadline = time.monotonic() + WAIT_S
            while not _first_turn_shown(shown := _tmux(socket, "capture-pane", "-p", "-t", name)):
                if time.monotonic() > deadline or _dead(socket, name):
                    raise SystemExit(f"{recording.name}: no first turn; the screen was:\n{shown}")
                time.sleep(POLL_S)
            screen = time.time() - spawned
            rss_first = _peak_rss_mb(pid)
            run = Run(screen, None, rss_first)
            if complete:
                while "analysing" in _tmux(socket, "capture-pane", "-p", "-t", name).splitlines()[0]:
                    if time.monotonic() > deadline:
                        raise SystemExit(f"{recording.name}: not analysed after {WAIT_S:.0f} s")
                    time.sleep(0.1)
                run.complete = time.time() - spawned
                run.rss_complete_mb = _peak_rss_mb(pid)
            steps = _clock(clock)
            if "started" in steps and "first-turn" in steps:
                run.in_app = steps["first-turn"] - steps["started"]
            return run
        finally:
            _tmux(socket, "kill-server")


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-".rjust(9)
    return f"{value:8.2f}{unit}" if unit == "s" else f"{value:7.0f}{unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--sizes", default="tiny,1000,5000,large", help="growing turn counts, `large` (1 GB), `tiny` (the floor)"
    )
    parser.add_argument("--complete", action="store_true", help="also wait for the whole analysis")
    parser.add_argument(
        "--baseline", help="another checkout's source tree (e.g. `git archive main`), run side by side"
    )
    args = parser.parse_args()
    recordings: list[tuple[str, Path]] = []
    for size in args.sizes.split(","):
        if size == "tiny":  # the floor: start-up and the first draw of a 3-turn recording
            path = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "inspector" / "world.jsonl"
        else:
            path = large() if size == "large" else growing(int(size))
        label = {"large": "large (10,000 turns)", "tiny": "tiny (3 turns)"}.get(size, f"{size} turns")
        recordings.append((f"{label}, {path.stat().st_size / 1e6:,.1f} MB", path))
    trees: list[str | None] = [None] + ([str(Path(args.baseline).resolve())] if args.baseline else [])
    runs: dict[tuple[str, str], list[Run]] = {}
    for _ in range(args.rounds):
        for label, path in recordings:
            for tree in trees:
                key = (label, "this tree" if tree is None else "baseline")
                runs.setdefault(key, []).append(measure(tree, path, complete=args.complete))
    print(f"medians of {args.rounds} rounds, interleaved; {os.cpu_count()} cores")
    print(f"{'recording':<30} {'code':<10} {'screen':>9} {'in-app':>9} {'rss first':>10} {'all':>9} {'rss all':>9}")
    for (label, where), results in runs.items():
        print(
            f"{label:<30} {where:<10} {_fmt(_median([r.screen for r in results]), 's')} "
            f"{_fmt(_median([r.in_app for r in results]), 's')} "
            f"{_fmt(_median([r.rss_first_mb for r in results]), ' MB'):>10} "
            f"{_fmt(_median([r.complete for r in results]), 's')} "
            f"{_fmt(_median([r.rss_complete_mb for r in results]), ' MB')}"
        )


if __name__ == "__main__":
    main()

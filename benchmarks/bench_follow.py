"""Benchmark: how soon `ctxscope inspect --follow FILE` shows a turn the recorder just appended.

Each round starts the real command in tmux (120x40) on a copy of a recording cut short by `--appends`
exchanges, waits until it is following, then appends the remaining exchanges one at a time as the
recorder does (each exchange's line with the stored parts written before it) and takes, for each,
the time from the write until the header says `turn N of N` (the new turn analysed with its flags,
drawn, the cursor on it). The live feed watches the file (inotify through watchfiles where it is
installed, else a poll inside the feed); each update also redoes the cache forensics for the flags.

Recordings: the small real Codex capture (`tests/fixtures/inspector/tui/codex.jsonl`, 6 turns) and
the growing session of `bench_analysis` at 100 and 1,000 turns (`open_recordings.growing`, cached).
Reported per recording: the median and the worst of every append over the rounds (target: within a
second of the write, issue 31).

Run: .venv/bin/python -m benchmarks.bench_follow [--rounds 3] [--appends 4] [--sizes codex,100,1000]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks.bench_open import POLL_S, _dead, _tmux
from benchmarks.open_recordings import growing

ROOT = Path(__file__).resolve().parents[1]
CODEX = ROOT / "tests" / "fixtures" / "inspector" / "tui" / "codex.jsonl"
WAIT_S = 120.0


def _chunks(source: Path, appends: int) -> tuple[bytes, list[bytes]]:
    """The file without its last `appends` exchanges, and those exchanges as the recorder writes each
    (its stored parts first, then its exchange line)."""
    lines = source.read_bytes().splitlines(keepends=True)
    ends = [i for i, line in enumerate(lines) if json.loads(line).get("kind") == "exchange"]
    cut = ends[-appends - 1]
    chunks, start = [], cut + 1
    for end in ends[-appends:]:
        chunks.append(b"".join(lines[start : end + 1]))
        start = end + 1
    return b"".join(lines[: cut + 1]), chunks


def _turns(source: Path) -> int:
    """Model turns as the header counts them (the analysis's), read once from the full file."""
    from ctxscope.inspector.analysis import analyse_recording

    return len(analyse_recording(source).turns)


def measure(source: Path, appends: int) -> list[float]:
    """One round: the seconds from each append's write until the header shows it."""
    head, chunks = _chunks(source, appends)
    total = _turns(source)
    with tempfile.TemporaryDirectory() as tmp:
        live, socket = Path(tmp) / "live.jsonl", Path(tmp) / "tmux.sock"
        live.write_bytes(head)
        name = f"follow-{uuid.uuid4().hex[:8]}"
        command = (
            f"exec env -u COLUMNS -u LINES TERM=xterm-256color {sys.executable} -m ctxscope.cli inspect --follow {live}"
        )
        _tmux(socket, "new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", str(ROOT), command)
        try:
            _tmux(socket, "set-option", "-t", name, "remain-on-exit", "on")

            def wait(turn: int) -> float:
                deadline = time.monotonic() + WAIT_S
                want = f"turn {turn} of {turn}"
                while want not in (screen := _tmux(socket, "capture-pane", "-p", "-t", name)):
                    if time.monotonic() > deadline or _dead(socket, name):
                        raise SystemExit(f"{source.name}: never showed {want!r}; the screen was:\n{screen}")
                    time.sleep(POLL_S)
                return time.monotonic()

            wait(total - appends)
            latencies = []
            for n, chunk in enumerate(chunks, start=total - appends + 1):
                time.sleep(0.5)  # the feed idle again, as between a real agent's turns
                with live.open("ab") as stream:
                    stream.write(chunk)
                written = time.monotonic()
                latencies.append(wait(n) - written)
            return latencies
        finally:
            _tmux(socket, "kill-server")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--appends", type=int, default=4, help="exchanges appended one by one per round")
    parser.add_argument("--sizes", default="codex,100,1000", help="codex and/or growing-session turn counts")
    args = parser.parse_args()
    sources = {s: (CODEX if s == "codex" else growing(int(s))) for s in args.sizes.split(",")}
    seen: dict[str, list[float]] = {s: [] for s in sources}
    for _ in range(args.rounds):
        for size, source in sources.items():  # interleaved, round by round
            seen[size] += measure(source, args.appends)
    print(f"{args.rounds} rounds x {args.appends} appends, `ctxscope inspect --follow` in tmux 120x40")
    print("| recording | median | worst |")
    print("|---|---|---|")
    for size, values in seen.items():
        label = "Codex capture, 6 turns" if size == "codex" else f"growing session, {int(size):,} turns"
        print(f"| {label} | {statistics.median(values):.2f} s | {max(values):.2f} s |")


if __name__ == "__main__":
    main()

"""When the app reached each step of opening a recording, for `benchmarks/bench_open.py` only:
with `CTXSCOPE_OPEN_CLOCK=FILE` set, each step appends `STEP UNIX-TIME` to FILE (`started`: the app
mounted, `first-turn`: the first turn's view is on screen, `complete`: every request analysed and
on the timeline). Unset, nothing is written or timed."""

from __future__ import annotations

import os
import time

ENV = "CTXSCOPE_OPEN_CLOCK"


def note(step: str) -> None:
    """Append `step` and the time to the benchmark's file, if one is asked for."""
    target = os.environ.get(ENV)
    if not target:
        return
    with open(target, "a", encoding="utf-8") as stream:
        stream.write(f"{step} {time.time():.6f}\n")


__all__ = ["ENV", "note"]

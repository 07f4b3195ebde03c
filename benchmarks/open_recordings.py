"""Recordings for `bench_open.py` (and the large-open tests), written with the proxy's real writer and
cached under ~/.cache/ctxscope-bench by their parameters (writing 5,000 growing turns takes minutes).

  growing(turns)   the growing session of `bench_analysis.py`: one thread whose context grows 4
                   items a turn (2.7 MB for 1,000 turns)
  large(turns, kb) many threads of `THREAD_TURNS` turns, each turn adding a tool output of `kb` KB
                   (10,000 turns of 100 KB: about 1 GB); bodies built one at a time, straight to
                   the writer
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.bench_analysis import TOOLS, _environment, _message, build, write
from ctxscope.proxy.store import FORMAT_VERSION

THREAD_TURNS = 20
"""Turns of each thread of the large recording (its contexts stay a few MB, as a real one's do)."""


def cache_dir() -> Path:
    """Where generated recordings are kept between runs."""
    folder = Path(os.environ.get("CTXSCOPE_BENCH_CACHE", Path.home() / ".cache" / "ctxscope-bench"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def growing(turns: int, folder: Path | None = None) -> Path:
    """The growing session of `turns` turns (written once, then taken from the cache)."""
    path = (folder or cache_dir()) / f"open-growing-{turns}-{FORMAT_VERSION}.jsonl"
    if not path.exists():
        partial = path.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        write(build(turns), partial)
        partial.rename(path)
    return path


def _output(thread: int, turn: int, kb: int) -> str:
    """A tool output of about `kb` KB that no other turn repeats (test-runner lines)."""
    line = f"t{thread:04d}.{turn:02d} tests/test_mod_%05d.py::test_case PASSED [ %3d%%]\n"
    count = max(1, kb * 1024 // len(line % (0, 0)))
    return "".join(line % (i, i * 100 // count) for i in range(count))


def _large_bodies(turns: int, kb: int) -> Iterator[dict[str, Any]]:
    """The request bodies of the large recording, one at a time."""
    instructions = "You are a coding agent. " * 40
    thread, items = -1, []
    for n in range(turns):
        if n % THREAD_TURNS == 0:
            thread += 1
            items = [_message("user", _environment(1 + thread % 28))]
        turn = n % THREAD_TURNS
        items.append(_message("user", f"thread {thread} step {turn}: run the tests"))
        yield {
            "model": "gpt-5-codex",
            "instructions": instructions,
            "input": list(items),
            "tools": TOOLS,
            "stream": True,
            "store": False,
            "prompt_cache_key": f"thread-{thread}",
        }
        items += [
            {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": f"call_{n}",
                "name": "tool_0",
                "arguments": '{"x": "pytest"}',
            },
            {"type": "function_call_output", "call_id": f"call_{n}", "output": _output(thread, turn, kb)},
        ]


def large(turns: int = 10_000, kb: int = 100, folder: Path | None = None) -> Path:
    """The large recording: `turns` turns in threads of `THREAD_TURNS`, `kb` KB new each turn."""
    path = (folder or cache_dir()) / f"open-large-{turns}x{kb}kb-{FORMAT_VERSION}.jsonl"
    if path.exists():
        return path
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    write(_large_bodies(turns, kb), partial)  # one body at a time, straight to the writer
    partial.rename(path)
    return path


__all__ = ["THREAD_TURNS", "cache_dir", "growing", "large"]

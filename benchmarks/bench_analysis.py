"""Benchmark: analysing a long growing session vs plain `json` loading of the same data.

Builds a Codex-like recording of N turns (default 1,000) whose context grows every turn (a user
message, a tool call and its output, an assistant message; an environment change every 100 turns),
writes it with the proxy's real `RecordingWriter`, then times, as medians of several runs:

  json lines     json.loads of every line of the recording file (the stored, deduplicated data)
  json bodies    json.loads of every full request body (the data a request-by-request tool reads)
  read           ctxscope.proxy.store.read_recording (lines + resolving the stored parts into bodies)
  analyse        inspector analysis of the loaded exchanges (turns, threads, changes, world
                 state, diffs, tokens)

Run: .venv/bin/python benchmarks/bench_analysis.py [--turns 1000] [--repeat 5]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ctxscope.harness.context.fragments import render_fragment
from ctxscope.inspector.analysis import analyse_exchanges
from ctxscope.inspector.analysis.tokens import get_tokenizer
from ctxscope.proxy.model import Exchange
from ctxscope.proxy.store import RecordingWriter, read_recording
from ctxscope.proxy.store import writer as writer_module

TOOLS = [
    {
        "type": "function",
        "name": f"tool_{i}",
        "description": "A tool. " * 20,
        "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
    }
    for i in range(8)
]


def _message(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def _environment(day: int) -> str:
    return render_fragment(
        "environment_context",
        {"cwd": "/repo", "shell": "bash", "current_date": f"2026-11-{day:02d}", "timezone": "UTC"},
    )


def build(turns: int) -> list[dict[str, Any]]:
    """The request bodies of one growing session."""
    permissions = render_fragment(
        "permissions",
        {
            "sandbox_mode": "workspace-write",
            "approval_policy": "never",
            "network_enabled": False,
            "writable_roots": ["/repo"],
        },
    )
    agents = render_fragment(
        "agents_md", {"path": "/repo", "docs": [{"path": "/repo/AGENTS.md", "text": "Use pytest. " * 50}]}
    )
    items: list[dict[str, Any]] = [
        _message("developer", permissions),
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": agents},
                {"type": "input_text", "text": _environment(1)},
            ],
        },
    ]
    bodies = []
    for n in range(turns):
        if n and n % 100 == 0:
            items.append(_message("user", _environment(1 + n // 100)))
        items.append(_message("user", f"step {n}: change function f{n} and run the tests"))
        bodies.append(
            {
                "model": "gpt-5-codex",
                "instructions": "You are a coding agent. " * 40,
                "input": list(items),
                "tools": TOOLS,
                "stream": True,
                "store": False,
                "prompt_cache_key": "thread-1",
            }
        )
        items += [
            {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": f"call_{n}",
                "name": "tool_0",
                "arguments": json.dumps({"x": f"pytest -k f{n}"}),
            },
            {
                "type": "function_call_output",
                "call_id": f"call_{n}",
                "output": f"Process exited with code 0\nOutput:\n{n} passed in 0.1s\n" + "." * 200,
            },
            _message("assistant", f"f{n} changed; tests pass."),
        ]
    return bodies


class _SharedItemsWriter(RecordingWriter):
    """The real writer, told that an item object it has stored is the same item when it comes again.

    A proxy gets every request as new bytes, so the writer hashes each input item of each request
    (n² work over a growing session, minutes for 5,000 turns). `build` hands the same item objects
    to every later request, so the stored hash of an object seen before is known; the file written
    is the same, byte for byte (`tests/proxy/test_bench_session.py`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._by_object: dict[int, tuple[Any, str]] = {}

    def _store_item(self, item: Any) -> str:
        known = self._by_object.get(id(item))
        if known is not None and known[0] is item:
            return known[1]
        stored = super()._store_item(item)
        self._by_object[id(item)] = (item, stored)  # keeps `item` alive: its id is not reused
        return stored


def write(bodies: Iterable[dict[str, Any]], path: Path, *, shared_items: bool = True) -> None:
    """Write the session as a real recording (`shared_items=False`: hash every item of every request
    again, as a proxy's writer does)."""
    with (_SharedItemsWriter if shared_items else RecordingWriter)(path, meta={"mode": "benchmark"}) as writer:
        for n, body in enumerate(bodies):
            writer.write(
                Exchange(
                    id=writer.next_id(),
                    started_at=1_800_000_000.0 + n,
                    method="POST",
                    url="http://127.0.0.1:9/v1/responses",
                    endpoint="responses",
                    status=200,
                    request_body=body,
                    response={
                        "id": f"resp_{n}",
                        "status": "completed",
                        "output": [],
                        "usage": {
                            "input_tokens": 1000 + 60 * n,
                            "input_tokens_details": {"cached_tokens": 1000 + 59 * n},
                        },
                    },
                )
            )


def cached_session(turns: int) -> Path:
    """The growing session of `turns` turns as a recording file, written once per version of this
    module and of the writer, and kept under ~/.cache/ctxscope-bench."""
    from ctxscope.proxy.store.format import FORMAT_VERSION

    store = Path(writer_module.__file__).parent
    sources = [Path(__file__), *(store / f"{name}.py" for name in ("writer", "format", "derive", "sse_forms"))]
    stamp = hashlib.sha256(b"".join(p.read_bytes() for p in sources))  # what decides the bytes written
    path = (
        Path.home() / ".cache" / "ctxscope-bench" / f"growing-{turns}-{FORMAT_VERSION}-{stamp.hexdigest()[:12]}.jsonl"
    )
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        write(build(turns), partial)
        partial.rename(path)
    return path


def median_s(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of `repeat` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(turns: int, repeat: int, workdir: Path) -> dict[str, float]:
    """Time each step for one session size."""
    bodies = build(turns)
    path = workdir / f"bench-{turns}.jsonl"
    write(bodies, path)
    raw = workdir / f"bodies-{turns}.jsonl"
    raw.write_text("\n".join(json.dumps(b) for b in bodies) + "\n")
    recording = read_recording(path)

    def json_lines(p: Path) -> Callable[[], object]:
        return lambda: [json.loads(line) for line in p.read_bytes().splitlines() if line.strip()]

    return {
        "file_mb": path.stat().st_size / 1e6,
        "bodies_mb": raw.stat().st_size / 1e6,
        "json_lines": median_s(json_lines(path), repeat),
        "json_bodies": median_s(json_lines(raw), repeat),
        "read": median_s(lambda: read_recording(path), repeat),
        "analyse": median_s(lambda: analyse_exchanges(recording.exchanges), repeat),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    get_tokenizer()  # load the encoding once, outside the timings
    sizes = sorted({max(1, args.turns // 4), max(1, args.turns // 2), args.turns})
    print(f"tokenizer: {get_tokenizer().name}; medians of {args.repeat} runs")
    print(
        f"{'turns':>6} {'file MB':>8} {'bodies MB':>10} {'json lines':>11} {'json bodies':>12} "
        f"{'read':>8} {'analyse':>8} {'analyse/bodies':>15} {'µs/turn':>8}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            r = run(n, args.repeat, Path(tmp))
            print(
                f"{n:>6} {r['file_mb']:>8.2f} {r['bodies_mb']:>10.1f} {r['json_lines']:>10.3f}s "
                f"{r['json_bodies']:>11.3f}s {r['read']:>7.3f}s {r['analyse']:>7.3f}s "
                f"{r['analyse'] / r['json_bodies']:>14.2f}× {1e6 * r['analyse'] / n:>8.0f}"
            )


if __name__ == "__main__":
    main()

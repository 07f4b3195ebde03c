"""Proxy benchmarks: overhead of `ctxscope proxy` vs going direct, store size, large late-turn bodies.

Run: `.venv/bin/python -m benchmarks.bench_proxy` (add `--quick` for a short run). Everything runs on
loopback against `BenchUpstream`; direct and proxied numbers come from the same run, side by side,
as medians with their difference and ratio. Results also go to benchmarks/results/proxy.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from benchmarks._upstream import EVENTS, SPACING_S, BenchUpstream
from proxy.recorder import Recorder
from proxy.responses import SseParser
from proxy.runner import ProxyServer
from proxy.store import RecordingWriter
from proxy.store.format import canonical_json

RESULTS = Path(__file__).parent / "results"


def _stream_once(client: httpx.Client, url: str, body: dict[str, Any]) -> tuple[float, float, float]:
    """(time to first SSE event, whole stream, spread between first and last event), seconds."""
    start = time.perf_counter()
    first = last = None
    parser = SseParser()
    with client.stream("POST", url, json=body) as response:
        for chunk in response.iter_raw():
            if parser.feed(chunk):
                now = time.perf_counter()
                first = first if first is not None else now
                last = now
    end = time.perf_counter()
    assert first is not None and last is not None, "no SSE event received"
    return first - start, end - start, last - first


def bench_streaming(base: str, n: int) -> dict[str, float]:
    body = {
        "model": "gpt-bench",
        "input": [{"type": "message", "role": "user", "content": "hi"}],
        "stream": True,
    }
    ttfe, total, spread = [], [], []
    with httpx.Client(timeout=30) as client:
        _stream_once(client, f"{base}/v1/responses", body)  # warm the connection
        for _ in range(n):
            a, b, c = _stream_once(client, f"{base}/v1/responses", body)
            ttfe.append(a)
            total.append(b)
            spread.append(c)
    return {
        "ttfe_ms": statistics.median(ttfe) * 1000,
        "stream_ms": statistics.median(total) * 1000,
        "spread_ms": statistics.median(spread) * 1000,
    }


def bench_throughput(base: str, n: int, workers: int) -> float:
    """Small GET requests per second."""

    def run(count: int) -> None:
        with httpx.Client(timeout=30) as client:
            for _ in range(count):
                client.get(f"{base}/v1/models").raise_for_status()

    run(5)
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(run, [n // workers] * workers))
    return (n // workers) * workers / (time.perf_counter() - start)


def _random_text(rng: random.Random, size: int) -> str:
    alphabet = string.ascii_letters + string.digits + "      \n"
    return "".join(rng.choice(alphabet) for _ in range(size))


def growing_session(turns: int, item_chars: int, seed: int = 7) -> tuple[list[dict[str, Any]], int]:
    """Request bodies of one session whose context grows by a user and an assistant item per turn,
    and the size of its unique content (distinct items + instructions + tools, canonical JSON)."""
    rng = random.Random(seed)
    instructions = _random_text(rng, 8000)
    tools = [
        {
            "type": "function",
            "name": f"tool_{i}",
            "description": _random_text(rng, 300),
            "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}},
        }
        for i in range(8)
    ]
    items: list[dict[str, Any]] = []
    bodies = []
    unique = len(instructions) + len(canonical_json(tools))
    for turn in range(turns):
        user = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": f"turn {turn}: " + _random_text(rng, item_chars)}],
        }
        items.append(user)
        unique += len(canonical_json(user))
        bodies.append(
            {
                "model": "gpt-bench",
                "instructions": instructions,
                "tools": tools,
                "input": list(items),
                "stream": True,
                "store": False,
                "prompt_cache_key": "bench-session",
            }
        )
        reply = {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": _random_text(rng, item_chars)}],
        }
        items.append(reply)
        unique += len(canonical_json(reply))
    return bodies, unique


def bench_session(base: str, bodies: list[dict[str, Any]], late: int) -> tuple[list[float], int]:
    """Request time (send body, read the whole fast stream) of each turn: the last `late` of them,
    and the bytes of all response streams received."""
    times = []
    received = 0
    with httpx.Client(timeout=60) as client:
        for body in bodies:
            payload = json.dumps(body).encode()
            start = time.perf_counter()
            with client.stream(
                "POST",
                f"{base}/v1/responses?fast",
                content=payload,
                headers={"content-type": "application/json"},
            ) as response:
                for chunk in response.iter_bytes():
                    received += len(chunk)
            times.append(time.perf_counter() - start)
    return times[-late:], received


class Proxied:
    """The real `ctxscope proxy` stack in-process: ProxyServer + Recorder + RecordingWriter."""

    def __init__(self, upstream: str, out: Path) -> None:
        self.writer = RecordingWriter(out, meta={"benchmark": True})
        self.server = ProxyServer([Recorder(self.writer)], mode="reverse", upstream=upstream)

    def __enter__(self) -> Proxied:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        self.writer.close()


def side_by_side(name: str, direct: float, proxied: float, unit: str) -> dict[str, Any]:
    row = {
        "metric": name,
        "direct": round(direct, 3),
        "proxied": round(proxied, 3),
        "unit": unit,
        "delta": round(proxied - direct, 3),
        "ratio": round(proxied / direct, 3) if direct else None,
    }
    print(
        f"{name:<34} {direct:>10.2f} {proxied:>10.2f} {unit:<6} Δ {proxied - direct:>+8.2f}  "
        f"ratio {row['ratio']}"
    )
    return row


def run(quick: bool) -> dict[str, Any]:
    n_stream = 15 if quick else 60
    n_small = 200 if quick else 1000
    turns = 60 if quick else 300
    rows: list[dict[str, Any]] = []
    report: dict[str, Any] = {"quick": quick, "events": EVENTS, "spacing_ms": SPACING_S * 1000}
    upstream = BenchUpstream().start()
    tmp = Path(tempfile.mkdtemp(prefix="ctxscope-bench-"))
    try:
        print(f"{'metric':<34} {'direct':>10} {'proxied':>10}")
        direct = bench_streaming(upstream.url, n_stream)
        with Proxied(upstream.url, tmp / "stream.jsonl") as proxied_stack:
            proxied = bench_streaming(proxied_stack.server.url, n_stream)
        rows.append(
            side_by_side("time to first SSE event (median)", direct["ttfe_ms"], proxied["ttfe_ms"], "ms")
        )
        rows.append(side_by_side("full stream (median)", direct["stream_ms"], proxied["stream_ms"], "ms"))
        rows.append(
            side_by_side("first→last event spread (median)", direct["spread_ms"], proxied["spread_ms"], "ms")
        )

        for workers in (1, 4):
            d = bench_throughput(upstream.url, n_small, workers)
            with Proxied(upstream.url, tmp / f"small{workers}.jsonl") as stack:
                p = bench_throughput(stack.server.url, n_small, workers)
            rows.append(side_by_side(f"small GETs/s, {workers} client(s)", d, p, "req/s"))

        bodies, unique = growing_session(turns, item_chars=1000)
        raw = sum(len(json.dumps(b)) for b in bodies)
        late = 20
        direct_late, _ = bench_session(upstream.url, bodies, late)
        out = tmp / "session.jsonl"
        with Proxied(upstream.url, out) as stack:
            proxied_late, streams = bench_session(stack.server.url, bodies, late)
        size = out.stat().st_size
        rows.append(
            side_by_side(
                f"late-turn request (last {late}, median)",
                statistics.median(direct_late) * 1000,
                statistics.median(proxied_late) * 1000,
                "ms",
            )
        )
        last_body_kb = len(json.dumps(bodies[-1])) / 1024
        report["store"] = {
            "turns": turns,
            "raw_request_bytes": raw,
            "unique_content_bytes": unique,
            "file_bytes": size,
            "file_vs_unique": round(size / unique, 3),
            "file_vs_raw": round(size / raw, 4),
            "last_body_kb": round(last_body_kb, 1),
            "raw_response_stream_bytes": streams,
        }
        print(f"\nstore, {turns}-turn growing session (last body {last_body_kb:.0f} KB):")
        print(f"  raw request bodies {raw / 1e6:8.2f} MB")
        print(
            f"  raw response SSE   {streams / 1e6:8.2f} MB  (created/completed echo instructions and tools)"
        )
        print(f"  unique content     {unique / 1e6:8.2f} MB")
        print(
            f"  recording on disk  {size / 1e6:8.2f} MB  = {size / unique:.2f}× unique, {size / raw:.4f}× raw"
        )
    finally:
        upstream.stop()
    report["rows"] = rows
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "proxy.json").write_text(json.dumps(report, indent=2))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer iterations and a 60-turn session")
    args = parser.parse_args()
    run(args.quick)


if __name__ == "__main__":
    main()

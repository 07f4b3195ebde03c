"""Store benchmark: recording size against unique content, format 1.1 vs 1.2, and the cost of reading.

Run: `.venv/bin/python -m benchmarks.bench_store` (`--quick`: 60 turns). Everything runs on loopback.

1. The 300-turn growing session of `bench_proxy` goes through the real proxy (`ProxyServer` +
   `Recorder` + `RecordingWriter`) to `BenchUpstream`, once with compact SSE JSON (as the API sends)
   and once with spaced JSON (`json.dumps` defaults), each written in format 1.1 and 1.2 (the
   writer's `version` option: 1.1 is what the previous release wrote). Printed: file size, unique
   content (distinct items + instructions + tools), their ratio.
2. Codex-shaped streams (reasoning, a message in ~4-character deltas, a function call; deltas
   carry random `obfuscation` and the response objects echo instructions and tools, as the API's
   do) written straight to a `RecordingWriter`: file size against unique content (the requests' plus
   each stream's output items and obfuscation) and against the SSE bytes received.
   Also the writer's time per exchange (median; redaction, storing, deriving and checking the stream).
3. Reading: `read_recording` (median of 5) and `ctxscope info` (median of 3) on each file.
Results also go to benchmarks/results/store.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._upstream import BenchUpstream
from benchmarks.bench_proxy import bench_session, growing_session
from ctxscope.proxy.model import Exchange, SseEvent
from ctxscope.proxy.recorder import Recorder
from ctxscope.proxy.responses import (
    fold_events,
    function_call,
    reasoning,
    response_stream,
    sequential_ids,
    text_message,
)
from ctxscope.proxy.runner import ProxyServer
from ctxscope.proxy.store import RecordingWriter, read_recording
from ctxscope.proxy.store.format import canonical_json

RESULTS = Path(__file__).parent / "results"
VERSIONS = ("1.1", "1.2")


def record_session(upstream: BenchUpstream, bodies: list[dict[str, Any]], out: Path, version: str) -> None:
    writer = RecordingWriter(out, meta={"benchmark": True}, version=version)
    server = ProxyServer([Recorder(writer)], mode="reverse", upstream=upstream.url)
    server.start()
    try:
        bench_session(server.url, bodies, 1)
    finally:
        server.stop()
        writer.close()


def codex_stream(turn: int, instructions: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = sequential_ids()
    text = " ".join(f"word{turn}-{i}" for i in range(120))
    args = {"cmd": ["rg", "-n", f"pattern {turn}", "src/"], "workdir": "/repo"}
    events = response_stream(
        reasoning([f"Planning turn {turn}.", "Checking the files involved."], chunks=8, ids=ids),
        text_message(text, chunks=len(text) // 4, ids=ids),
        function_call("exec_command", args, chunks=12, ids=ids),
        response_id=f"resp_{turn:04d}",
        created_at=1_700_000_000 + turn,
        ids=ids,
    )
    rng = random.Random(turn)
    for event in events:  # the real API echoes the request's instructions and tools
        if isinstance(event.get("response"), dict):
            event["response"] = {**event["response"], "instructions": instructions, "tools": tools}
        if event["type"].endswith(".delta"):  # and pads each delta with random `obfuscation`
            event["obfuscation"] = "".join(rng.choices(string.ascii_letters + string.digits, k=10))
    return events


def stream_content(events: list[dict[str, Any]]) -> int:
    """What a stream adds to the unique content: its output items and its deltas' obfuscation."""
    response = fold_events(events) or {}
    items = sum(len(canonical_json(item)) for item in response.get("output", []))
    return items + sum(len(e.get("obfuscation", "")) for e in events)


def record_codex_streams(
    bodies: list[dict[str, Any]], out: Path, version: str, compact: bool
) -> tuple[int, float]:
    """Write one exchange per body with a Codex-shaped stream: (SSE bytes received, median ms per write)."""
    received = 0
    writes: list[float] = []
    separators = (",", ":") if compact else None
    with RecordingWriter(out, version=version) as writer:
        for turn, body in enumerate(bodies):
            events = codex_stream(turn, body["instructions"], body["tools"])
            sse = [
                SseEvent(t_ms=1.0 + n, event=e["type"], data=json.dumps(e, separators=separators))
                for n, e in enumerate(events)
            ]
            received += sum(len(e.encode()) for e in sse)
            exchange = Exchange(
                id=-1,
                started_at=1000.0 + turn,
                method="POST",
                url="http://127.0.0.1:1/v1/responses",
                endpoint="responses",
                status=200,
                request_headers={"content-type": "application/json"},
                request_body=body,
                sse=sse,
                response=fold_events(events),
            )
            start = time.perf_counter()
            writer.write(exchange)
            writes.append(time.perf_counter() - start)
    return received, statistics.median(writes) * 1000


def read_times(path: Path) -> dict[str, float]:
    reads = []
    for _ in range(5):
        start = time.perf_counter()
        read_recording(path)
        reads.append(time.perf_counter() - start)
    infos = []
    cli = Path(sys.executable).with_name("ctxscope")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([str(cli), "info", str(path)], check=True, capture_output=True, env=os.environ.copy())
        infos.append(time.perf_counter() - start)
    return {"read_ms": statistics.median(reads) * 1000, "info_ms": statistics.median(infos) * 1000}


def run(quick: bool) -> dict[str, Any]:
    turns = 60 if quick else 300
    bodies, unique = growing_session(turns, item_chars=1000)
    tmp = Path(tempfile.mkdtemp(prefix="ctxscope-bench-store-"))
    report: dict[str, Any] = {"turns": turns, "unique_content_bytes": unique, "session": [], "codex": []}
    print(f"{turns}-turn growing session through the proxy, unique content {unique / 1e6:.2f} MB")
    print(f"{'SSE JSON':<10} {'format':<7} {'file MB':>8} {'× unique':>9} {'read ms':>8} {'info ms':>8}")
    for compact in (True, False):
        upstream = BenchUpstream(compact=compact).start()
        try:
            for version in VERSIONS:
                out = tmp / f"session-{'compact' if compact else 'spaced'}-{version}.jsonl"
                record_session(upstream, bodies, out, version)
                size = out.stat().st_size
                timing = read_times(out)
                row = {"sse_json": "compact" if compact else "spaced", "format": version, "file_bytes": size}
                row |= {"vs_unique": round(size / unique, 3), **{k: round(v, 1) for k, v in timing.items()}}
                report["session"].append(row)
                print(
                    f"{row['sse_json']:<10} {version:<7} {size / 1e6:>8.3f} {size / unique:>9.2f} "
                    f"{timing['read_ms']:>8.0f} {timing['info_ms']:>8.0f}"
                )
        finally:
            upstream.stop()

    codex_unique = unique + sum(
        stream_content(codex_stream(turn, body["instructions"], body["tools"]))
        for turn, body in enumerate(bodies)
    )
    report["codex_unique_content_bytes"] = codex_unique
    print(
        f"\nCodex-shaped streams ({turns} turns, ~260 events each), written directly; unique content "
        f"{codex_unique / 1e6:.2f} MB (requests' + the streams' output items and obfuscation)"
    )
    print(
        f"{'SSE JSON':<10} {'format':<7} {'file MB':>8} {'× unique':>9} {'SSE in MB':>9} {'read ms':>8} "
        f"{'write ms':>8}"
    )
    for compact in (True, False):
        for version in VERSIONS:
            out = tmp / f"codex-{'compact' if compact else 'spaced'}-{version}.jsonl"
            received, write_ms = record_codex_streams(bodies, out, version, compact)
            size = out.stat().st_size
            reads = []
            for _ in range(3):
                start = time.perf_counter()
                read_recording(out)
                reads.append(time.perf_counter() - start)
            row = {
                "sse_json": "compact" if compact else "spaced",
                "format": version,
                "file_bytes": size,
                "sse_received_bytes": received,
                "vs_unique": round(size / codex_unique, 3),
                "read_ms": round(statistics.median(reads) * 1000, 1),
                "write_ms_per_exchange": round(write_ms, 2),
            }
            report["codex"].append(row)
            print(
                f"{row['sse_json']:<10} {version:<7} {size / 1e6:>8.3f} {size / codex_unique:>9.2f} "
                f"{received / 1e6:>9.2f} {row['read_ms']:>8.0f} {write_ms:>8.2f}"
            )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "store.json").write_text(json.dumps(report, indent=2))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a 60-turn session instead of 300")
    args = parser.parse_args()
    run(args.quick)


if __name__ == "__main__":
    main()

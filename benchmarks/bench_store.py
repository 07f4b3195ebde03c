"""Store benchmark: recording size against unique content, format 1.2 vs 1.3, where the bytes go, and reading.

Run: `.venv/bin/python -m benchmarks.bench_store` (`--quick`: 60 turns; `--versions 1.1 1.2 1.3`;
`--rounds N`). Everything runs on loopback.

1. The 300-turn growing session of `bench_proxy` goes through the real proxy (`ProxyServer` +
   `Recorder` + `RecordingWriter`) to `BenchUpstream`, once with compact SSE JSON (as the API sends)
   and once with spaced JSON (`json.dumps` defaults), each written in every version compared (the
   writer's `version` option: 1.2 is what the previous release wrote). Printed: file size, unique
   content (distinct items + instructions + tools), their ratio.
2. Codex-shaped exchanges (reasoning, a message in ~4-character deltas, a function call; deltas
   carry random `obfuscation`, the response objects echo instructions and tools, events arrive
   0.05-40 ms apart, as the API's do; the requests carry Codex's per-request metadata: a 1 KB
   `x-codex-turn-metadata` header repeated in `client_metadata`, whose keys come in a new order on
   every request, a new turn every 3 requests, as `tests/fixtures/codex` shows) written straight to a
   `RecordingWriter`: file size against unique content (the requests' plus each stream's output items
   and obfuscation) and against the SSE bytes received. Also the writer's time per exchange (median;
   redaction, storing, deriving and checking the stream).
3. Where the bytes go: each file split by part (the unique content: items, instructions and tools;
   the derived streams; event times; response objects; headers; request-body references; other
   per-exchange metadata), in bytes and as a share of the unique content.
4. Reading: `read_recording` and `ctxscope info` on each file, the versions interleaved round by
   round (medians of `--rounds`, default 5).
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
from ctxscope.proxy.store.format import canonical_json, loads

RESULTS = Path(__file__).parent / "results"
VERSIONS = ("1.2", "1.3")


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


def arrival_times(turn: int, count: int) -> list[float]:
    """When a stream's events arrived (ms after the request, rounded as the recorder does): a first
    byte after 300-900 ms, then 0.05-40 ms apart."""
    rng = random.Random(10_000 + turn)
    t = rng.uniform(300, 900)
    times = []
    for _ in range(count):
        times.append(round(t, 3))
        t += rng.uniform(0.05, 40)
    return times


def codex_metadata(turn: int) -> tuple[dict[str, str], dict[str, Any]]:
    """Codex's per-request headers and `client_metadata`: the turn metadata (a new user turn every 3
    requests) in both, `client_metadata`'s keys in a new order each request (a Rust HashMap)."""
    session = "01a2339e-a920-7f92-a7ff-d3e35b7dcdd8"
    user_turn = f"01a2339e-a956-79f3-a03b-{turn // 3:012d}"
    turn_metadata = json.dumps(
        {
            "installation_id": "bbffa26c-b95c-449d-9da9-c6ce9188908a",
            "session_id": session,
            "thread_id": session,
            "agent_name": "/root",
            "turn_id": user_turn,
            "window_id": f"{session}:0",
            "request_kind": "turn",
            "thread_source": "user",
            "sandbox": "seccomp",
            "sandbox_mode": "workspace-write",
            "workspaces": {"/home/dev/repo": {"has_changes": True}},
            "turn_started_at_unix_ms": 1796162365789 + turn // 3 * 60_000,
            "model": "gpt-5.5",
            "reasoning_effort": "medium",
        },
        separators=(",", ":"),
    )
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream",
        "session-id": session,
        "x-codex-window-id": f"{session}:0",
        "x-codex-turn-metadata": turn_metadata,
        "x-client-request-id": session,
    }
    values = {
        "thread_id": session,
        "x-codex-installation-id": "bbffa26c-b95c-449d-9da9-c6ce9188908a",
        "root_turn_id": user_turn,
        "x-codex-turn-metadata": turn_metadata,
        "turn_id": user_turn,
        "session_id": session,
        "x-codex-window-id": f"{session}:0",
    }
    keys = list(values)
    random.Random(20_000 + turn).shuffle(keys)
    return headers, {key: values[key] for key in keys}


def stream_content(events: list[dict[str, Any]]) -> int:
    """What a stream adds to the unique content: its output items and its deltas' obfuscation."""
    response = fold_events(events) or {}
    items = sum(len(canonical_json(item)) for item in response.get("output", []))
    return items + sum(len(e.get("obfuscation", "")) for e in events)


def record_codex_streams(bodies: list[dict[str, Any]], out: Path, version: str, compact: bool) -> tuple[int, float]:
    """Write one exchange per body with a Codex-shaped stream: (SSE bytes received, median ms per write)."""
    received = 0
    writes: list[float] = []
    separators = (",", ":") if compact else None
    with RecordingWriter(out, version=version) as writer:
        for turn, body in enumerate(bodies):
            events = codex_stream(turn, body["instructions"], body["tools"])
            times = arrival_times(turn, len(events))
            sse = [
                SseEvent(t_ms=t_ms, event=e["type"], data=json.dumps(e, separators=separators))
                for t_ms, e in zip(times, events, strict=True)
            ]
            received += sum(len(e.encode()) for e in sse)
            headers, client_metadata = codex_metadata(turn)
            exchange = Exchange(
                id=-1,
                started_at=1000.0 + turn,
                method="POST",
                url="http://127.0.0.1:1/v1/responses",
                endpoint="responses",
                status=200,
                request_headers={**headers, "content-length": str(len(json.dumps(body)))},
                request_body={**body, "client_metadata": client_metadata},
                sse=sse,
                response=fold_events(events),
            )
            start = time.perf_counter()
            writer.write(exchange)
            writes.append(time.perf_counter() - start)
    return received, statistics.median(writes) * 1000


# -- where the bytes go -------------------------------------------------------------------------
CONTENT_PARTS = ("items (input and output)", "instructions, tools")
PARTS = (
    *CONTENT_PARTS,
    "SSE streams (stored forms)",
    "SSE event times",
    "response objects",
    "header sets and values",
    "request metadata values",
    "request-body references",
    "blob lines' kind and hash",
    "other exchange fields",
)


def _refs(value: Any) -> list[str]:
    """Every blob hash referenced inside `value`."""
    if isinstance(value, dict):
        found = [value[k] for k in ("$blob", "$stream") if isinstance(value.get(k), str)]
        items = value.get("$items")
        if isinstance(items, dict):
            found += [h for h in items.get("add", []) if isinstance(h, str)]
        for key, child in value.items():
            if key not in ("$blob", "$stream", "$items"):
                found += _refs(child)
        return found
    if isinstance(value, list):
        return [h for child in value for h in _refs(child)]
    return []


def _size(key: str, value: Any) -> int:
    """The bytes `"key":value,` takes in a compact JSON line."""
    return len(json.dumps({key: value}, separators=(",", ":"), ensure_ascii=False).encode()) - 1


def breakdown(path: Path) -> dict[str, int]:
    """The file's bytes by part (see `PARTS`); a blob counts for the part that first refers to it."""
    lines = [loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]

    def compact(value: Any) -> int:
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())

    blob_sizes = {line["h"]: (compact(line) + 1, compact(line["v"])) for line in lines if line.get("kind") == "blob"}
    blobs = {line["h"]: line["v"] for line in lines if line.get("kind") == "blob"}
    owner: dict[str, str] = {}

    def claim(hashes: list[str], part: str) -> None:
        for h in hashes:
            if h in owner:
                continue
            owner[h] = part
            if part == "SSE streams (stored forms)":  # a stream's literal events refer to items
                claim(_refs(blobs.get(h)), "items (input and output)")

    parts = dict.fromkeys(PARTS, 0)
    parts["other exchange fields"] += len(json.dumps(lines[0], separators=(",", ":")).encode()) + 1
    for line in lines:
        if line.get("kind") != "exchange":
            continue
        parts["other exchange fields"] += len(b'{"kind":"exchange",}\n') - 1
        for key, value in line.items():
            if key == "kind":
                continue
            if key == "request_body" and isinstance(value, dict):
                for field, part_value in value.items():
                    if field == "input" or field == "$as":
                        parts["request-body references"] += _size(field, part_value)
                        claim(_refs(part_value), "items (input and output)")
                    elif field in ("instructions", "tools"):
                        parts["request-body references"] += _size(field, part_value)
                        claim(_refs(part_value), "instructions, tools")
                    else:
                        parts["request metadata values"] += _size(field, part_value)
                        claim(_refs(part_value), "request metadata values")
                parts["request-body references"] += len('"request_body":{}')
            elif key in ("request_headers", "response_headers"):
                parts["header sets and values"] += _size(key, value)
                claim(_refs(value), "header sets and values")
            elif key == "response" and isinstance(value, dict):
                parts["response objects"] += _size(key, value)
                claim(_refs(value.get("output")), "items (input and output)")
                claim(_refs(value), "instructions, tools")
            elif key == "sse":
                timing = {k: v for k, v in value.items() if k in ("t_ms", "dt")} if isinstance(value, dict) else {}
                rest = {k: v for k, v in value.items() if k not in timing} if isinstance(value, dict) else value
                parts["SSE event times"] += sum(_size(k, v) for k, v in timing.items())
                if isinstance(rest, list):  # one stored event each: the times are in them
                    times = sum(_size("t_ms", e["t_ms"]) for e in rest if isinstance(e, dict) and "t_ms" in e)
                    parts["SSE event times"] += times
                    parts["SSE streams (stored forms)"] += _size(key, rest) - times
                else:
                    parts["SSE streams (stored forms)"] += _size(key, rest)
                for h in _refs(rest):
                    claim(
                        [h],
                        "SSE streams (stored forms)"
                        if "events" in (blobs.get(h) or {})
                        else "items (input and output)",
                    )
            else:
                parts["other exchange fields"] += _size(key, value)
    for h, (size, value) in blob_sizes.items():
        parts[owner.get(h, "other exchange fields")] += value
        parts["blob lines' kind and hash"] += size - value
    return parts


def read_times(paths: dict[str, Path], rounds: int, info: bool) -> dict[str, dict[str, float]]:
    """Median `read_recording` (and `ctxscope info`) time of each file, the files interleaved per round."""
    reads: dict[str, list[float]] = {name: [] for name in paths}
    infos: dict[str, list[float]] = {name: [] for name in paths}
    cli = Path(sys.executable).with_name("ctxscope")
    for _ in range(rounds):
        for name, path in paths.items():
            start = time.perf_counter()
            read_recording(path)
            reads[name].append(time.perf_counter() - start)
            if info:
                start = time.perf_counter()
                subprocess.run([str(cli), "info", str(path)], check=True, capture_output=True, env=os.environ.copy())
                infos[name].append(time.perf_counter() - start)
    out: dict[str, dict[str, float]] = {}
    for name in paths:
        out[name] = {"read_ms": round(statistics.median(reads[name]) * 1000, 1)}
        if info:
            out[name]["info_ms"] = round(statistics.median(infos[name]) * 1000, 1)
    return out


def print_breakdown(title: str, files: dict[str, Path], unique: int) -> dict[str, dict[str, int]]:
    split = {name: breakdown(path) for name, path in files.items()}
    print(f"\n{title}: bytes by part, and × unique content ({unique / 1e6:.2f} MB)")
    print(f"{'part':<28}" + "".join(f"{name:>22}" for name in files))
    for part in PARTS:
        cells = "".join(f"{split[n][part] / 1e3:>12.1f} kB {split[n][part] / unique:>5.2f}×" for n in files)
        print(f"{part:<28}{cells}")
    over = {n: sum(v for k, v in split[n].items() if k not in CONTENT_PARTS) for n in files}
    print(
        f"{'overhead (all but content)':<28}"
        + "".join(f"{over[n] / 1e3:>12.1f} kB {over[n] / unique:>5.2f}×" for n in files)
    )
    return split


def run(quick: bool, versions: tuple[str, ...], rounds: int) -> dict[str, Any]:
    turns = 60 if quick else 300
    bodies, unique = growing_session(turns, item_chars=1000)
    tmp = Path(tempfile.mkdtemp(prefix="ctxscope-bench-store-"))
    report: dict[str, Any] = {"turns": turns, "unique_content_bytes": unique, "session": [], "codex": []}
    print(f"{turns}-turn growing session through the proxy, unique content {unique / 1e6:.2f} MB")
    session_files: dict[str, Path] = {}
    for compact in (True, False):
        upstream = BenchUpstream(compact=compact).start()
        try:
            for version in versions:
                out = tmp / f"session-{'compact' if compact else 'spaced'}-{version}.jsonl"
                record_session(upstream, bodies, out, version)
                session_files[f"{'compact' if compact else 'spaced'} {version}"] = out
        finally:
            upstream.stop()
    timing = read_times(session_files, rounds, info=True)
    print(f"{'SSE JSON':<10} {'format':<7} {'file MB':>8} {'× unique':>9} {'read ms':>8} {'info ms':>8}")
    for name, out in session_files.items():
        layout, version = name.split()
        size = out.stat().st_size
        row = {"sse_json": layout, "format": version, "file_bytes": size, "vs_unique": round(size / unique, 3)}
        row |= timing[name]
        report["session"].append(row)
        print(
            f"{layout:<10} {version:<7} {size / 1e6:>8.3f} {size / unique:>9.2f} "
            f"{row['read_ms']:>8.0f} {row['info_ms']:>8.0f}"
        )
    compact_session = {n: p for n, p in session_files.items() if n.startswith("compact")}
    report["session_parts"] = print_breakdown("the session (compact SSE JSON)", compact_session, unique)

    codex_unique = unique + sum(
        stream_content(codex_stream(turn, body["instructions"], body["tools"])) for turn, body in enumerate(bodies)
    )
    report["codex_unique_content_bytes"] = codex_unique
    print(
        f"\nCodex-shaped exchanges ({turns} turns, ~260 events each, Codex's request metadata), written "
        f"directly; unique content {codex_unique / 1e6:.2f} MB (requests' + the streams' output items and "
        "obfuscation)"
    )
    codex_files: dict[str, Path] = {}
    writes: dict[str, tuple[int, float]] = {}
    for compact in (True, False):
        for version in versions:
            name = f"{'compact' if compact else 'spaced'} {version}"
            codex_files[name] = tmp / f"codex-{'compact' if compact else 'spaced'}-{version}.jsonl"
            writes[name] = record_codex_streams(bodies, codex_files[name], version, compact)
    timing = read_times(codex_files, rounds, info=False)
    print(
        f"{'SSE JSON':<10} {'format':<7} {'file MB':>8} {'× unique':>9} {'SSE in MB':>9} {'read ms':>8} {'write ms':>8}"
    )
    for name, out in codex_files.items():
        layout, version = name.split()
        size = out.stat().st_size
        received, write_ms = writes[name]
        row = {
            "sse_json": layout,
            "format": version,
            "file_bytes": size,
            "sse_received_bytes": received,
            "vs_unique": round(size / codex_unique, 3),
            "read_ms": timing[name]["read_ms"],
            "write_ms_per_exchange": round(write_ms, 2),
        }
        report["codex"].append(row)
        print(
            f"{layout:<10} {version:<7} {size / 1e6:>8.3f} {size / codex_unique:>9.2f} "
            f"{received / 1e6:>9.2f} {row['read_ms']:>8.0f} {write_ms:>8.2f}"
        )
    compact_codex = {n: p for n, p in codex_files.items() if n.startswith("compact")}
    report["codex_parts"] = print_breakdown("Codex-shaped (compact SSE JSON)", compact_codex, codex_unique)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "store.json").write_text(json.dumps(report, indent=2))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a 60-turn session instead of 300")
    parser.add_argument("--versions", nargs="+", default=list(VERSIONS), help="format versions to compare")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved reading rounds (medians)")
    args = parser.parse_args()
    run(args.quick, tuple(args.versions), args.rounds)


if __name__ == "__main__":
    main()

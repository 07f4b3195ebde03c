"""Proxy benchmarks: overhead of `ctxscope proxy` vs going direct, store size, large late-turn bodies.

Run: `.venv/bin/python -m benchmarks.bench_proxy` (add `--quick` for a short run, `--late-only` for just
the late-turn overhead). Everything runs on loopback against `BenchUpstream`; direct and proxied numbers
come from the same run, side by side, as medians with their difference and ratio. Results also go to
benchmarks/results/proxy.json.

Late-turn overhead: a growing session (300 turns, last request body ~660 KB) is sent direct and then
through the proxy, `--runs` times back to back (default 5). Per run the overhead is the median over the
last 20 turns of proxied minus direct; across runs the median and the worst are reported, since the
target (at most +10 ms) holds for every run, not on average. The machine load is printed with them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import string
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from benchmarks._upstream import EVENTS, SPACING_S, BenchUpstream
from ctxscope.proxy.recorder import Recorder
from ctxscope.proxy.responses import SseParser
from ctxscope.proxy.runner import ProxyServer
from ctxscope.proxy.store import RecordingWriter
from ctxscope.proxy.store.format import canonical_json

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

    @property
    def url(self) -> str:
        return self.server.url

    def __enter__(self) -> Proxied:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        self.writer.close()


class ProxiedProcess:
    """`ctxscope proxy` as a user runs it: its own process (no GIL shared with client or upstream)."""

    def __init__(self, upstream: str, out: Path) -> None:
        self.upstream = upstream
        self.out = out
        with socket.socket() as probe:  # a free port; the proxy binds it a moment later
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ProxiedProcess:
        command = [sys.executable, "-m", "ctxscope.cli", "proxy", "--upstream", self.upstream]
        command += ["--listen", f"127.0.0.1:{self.port}", "--out", str(self.out)]
        env = {**os.environ, "CTXSCOPE_HOME": str(self.out.parent / "home")}
        self.process = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"ctxscope proxy exited with {self.process.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return self
            time.sleep(0.05)
        self.__exit__()
        raise RuntimeError("ctxscope proxy did not start listening within 30 s")

    def cpu_s(self) -> float | None:
        """CPU seconds (user + system) the proxy process has used so far; None off Linux."""
        pid = self.process.pid if self.process else 0
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1]
        except OSError:
            return None
        utime, stime = fields.split()[11:13]
        return (int(utime) + int(stime)) / os.sysconf("SC_CLK_TCK")

    def __exit__(self, *exc: object) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGINT)  # Ctrl-C: the proxy finishes the recording and exits
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


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


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min, {os.cpu_count()} cores)"


def late_turn_overhead(
    upstream: str,
    bodies: list[dict[str, Any]],
    runs: int,
    late: int,
    out_dir: Path,
    in_process: bool = True,
) -> dict[str, Any]:
    """Per run: the median over the last `late` turns, direct and proxied (back to back), and their
    difference; across runs: the median and the worst difference. The last run's recording is kept.
    `in_process=False` runs the proxy as `ctxscope proxy` in a process of its own."""
    per_run = []
    stack_class = Proxied if in_process else ProxiedProcess
    for index in range(runs):
        load_before = _load()
        direct, _ = bench_session(upstream, bodies, late)
        out = out_dir / "session.jsonl"
        out.unlink(missing_ok=True)
        with stack_class(upstream, out) as stack:
            cpu_before = stack.cpu_s() if isinstance(stack, ProxiedProcess) else None
            proxied, streams = bench_session(stack.url, bodies, late)
            cpu_after = stack.cpu_s() if isinstance(stack, ProxiedProcess) else None
        d_ms, p_ms = statistics.median(direct) * 1000, statistics.median(proxied) * 1000
        row = {
            "run": index + 1,
            "direct_ms": round(d_ms, 3),
            "proxied_ms": round(p_ms, 3),
            "overhead_ms": round(p_ms - d_ms, 3),
            "proxied_worst_turn_ms": round(max(proxied) * 1000, 3),
            "load_before": load_before,
            "load_after": _load(),
            "file_bytes": out.stat().st_size,
            "response_stream_bytes": streams,
        }
        if cpu_before is not None and cpu_after is not None:  # load-independent: what the proxy worked
            row["proxy_cpu_ms_per_request"] = round((cpu_after - cpu_before) * 1000 / len(bodies), 2)
        per_run.append(row)
        print(
            f"  run {index + 1}: direct {d_ms:7.2f} ms  proxied {p_ms:7.2f} ms  "
            f"overhead {p_ms - d_ms:+7.2f} ms  "
            + (f"proxy CPU {row['proxy_cpu_ms_per_request']} ms/request  " if cpu_after is not None else "")
            + f"(slowest proxied turn {row['proxied_worst_turn_ms']:.1f} ms; {row['load_after']})"
        )
    overheads = [r["overhead_ms"] for r in per_run]
    summary = {
        "proxy": "in-process" if in_process else "ctxscope proxy process",
        "runs": per_run,
        "late_turns": late,
        "overhead_median_ms": round(statistics.median(overheads), 3),
        "overhead_worst_ms": round(max(overheads), 3),
        "direct_median_ms": round(statistics.median(r["direct_ms"] for r in per_run), 3),
        "proxied_median_ms": round(statistics.median(r["proxied_ms"] for r in per_run), 3),
    }
    cpu = [r["proxy_cpu_ms_per_request"] for r in per_run if "proxy_cpu_ms_per_request" in r]
    if cpu:
        summary["proxy_cpu_ms_per_request_median"] = statistics.median(cpu)
    print(
        f"late-turn overhead over {runs} runs: median {summary['overhead_median_ms']:+.2f} ms, "
        f"worst {summary['overhead_worst_ms']:+.2f} ms"
        + (f"; proxy CPU median {statistics.median(cpu)} ms/request" if cpu else "")
    )
    return summary


def run(quick: bool, runs: int = 5, late_only: bool = False, in_process: bool = True) -> dict[str, Any]:
    turns = 60 if quick else 300
    report: dict[str, Any] = {"quick": quick, "events": EVENTS, "spacing_ms": SPACING_S * 1000}
    upstream = BenchUpstream().start()
    tmp = Path(tempfile.mkdtemp(prefix="ctxscope-bench-"))
    try:
        if late_only:
            bodies, _ = growing_session(turns, item_chars=1000)
            where = "in-process proxy" if in_process else "ctxscope proxy in its own process"
            print(f"late-turn overhead, {turns}-turn session, {runs} runs, {where} ({_load()}):")
            report["late_turns"] = late_turn_overhead(upstream.url, bodies, runs, 20, tmp, in_process)
        else:
            report |= _all_benchmarks(upstream.url, tmp, quick, runs)
    finally:
        upstream.stop()
    RESULTS.mkdir(exist_ok=True)
    name = "proxy.json" if not late_only else "proxy-late.json" if in_process else "proxy-late-process.json"
    (RESULTS / name).write_text(json.dumps(report, indent=2))
    return report


def _all_benchmarks(upstream_url: str, tmp: Path, quick: bool, runs: int) -> dict[str, Any]:
    n_stream = 15 if quick else 60
    n_small = 200 if quick else 1000
    turns = 60 if quick else 300
    rows: list[dict[str, Any]] = []
    report: dict[str, Any] = {}
    print(f"{'metric':<34} {'direct':>10} {'proxied':>10}")
    direct = bench_streaming(upstream_url, n_stream)
    with Proxied(upstream_url, tmp / "stream.jsonl") as proxied_stack:
        proxied = bench_streaming(proxied_stack.server.url, n_stream)
    rows.append(side_by_side("time to first SSE event (median)", direct["ttfe_ms"], proxied["ttfe_ms"], "ms"))
    rows.append(side_by_side("full stream (median)", direct["stream_ms"], proxied["stream_ms"], "ms"))
    rows.append(
        side_by_side("first→last event spread (median)", direct["spread_ms"], proxied["spread_ms"], "ms")
    )

    for workers in (1, 4):
        d = bench_throughput(upstream_url, n_small, workers)
        with Proxied(upstream_url, tmp / f"small{workers}.jsonl") as stack:
            p = bench_throughput(stack.server.url, n_small, workers)
        rows.append(side_by_side(f"small GETs/s, {workers} client(s)", d, p, "req/s"))

    bodies, unique = growing_session(turns, item_chars=1000)
    raw = sum(len(json.dumps(b)) for b in bodies)
    late = 20
    print(f"\nlate-turn request, {turns}-turn session, {runs} runs ({_load()}):")
    late_report = late_turn_overhead(upstream_url, bodies, runs, late, tmp)
    report["late_turns"] = late_report
    rows.append(
        side_by_side(
            f"late-turn request (last {late}, median)",
            late_report["direct_median_ms"],
            late_report["proxied_median_ms"],
            "ms",
        )
    )
    size = late_report["runs"][-1]["file_bytes"]
    streams = late_report["runs"][-1]["response_stream_bytes"]
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
    print(f"  raw response SSE   {streams / 1e6:8.2f} MB  (created/completed echo instructions and tools)")
    print(f"  unique content     {unique / 1e6:8.2f} MB")
    print(f"  recording on disk  {size / 1e6:8.2f} MB  = {size / unique:.2f}× unique, {size / raw:.4f}× raw")
    report["rows"] = rows
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer iterations and a 60-turn session")
    parser.add_argument("--runs", type=int, default=5, help="late-turn runs (direct, then proxied)")
    parser.add_argument("--late-only", action="store_true", help="only the late-turn overhead")
    parser.add_argument(
        "--proxy-process",
        action="store_true",
        help="with --late-only: run `ctxscope proxy` in its own process instead of in-process",
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.proxy_process and not args.late_only:
        parser.error("--proxy-process goes with --late-only")
    run(args.quick, runs=args.runs, late_only=args.late_only, in_process=not args.proxy_process)


if __name__ == "__main__":
    main()

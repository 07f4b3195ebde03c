"""Short requests per second through `ctxscope proxy` against bare `mitmdump` in the same mode.

Run: `.venv/bin/python -m benchmarks.bench_throughput` (`--quick` for a short run; `--rounds`,
`--seconds`, `--connections`, `--kinds` to choose; `--baseline DIR` adds another checkout's
`ctxscope proxy`, e.g. main's, to every round). Results also go to benchmarks/results/throughput.json.

Three processes besides this one, all on loopback: the benchmark upstream (`benchmarks._upstream`),
and the two proxies, each a process of its own as a user runs it:
(a) `mitmdump -q --mode reverse:UPSTREAM --set stream_large_bodies=1 --set connection_strategy=lazy`
    (every body streamed, no addons of ours), and
(b) `ctxscope proxy --upstream UPSTREAM --out FILE` (recording: redaction, storing, writing).
Both stay up for the whole run. Each round loads each proxy in turn (the order alternates from round to
round) with `--connections` keep-alive connections sending one kind of request back to back for
`--seconds`; the client is a minimal asyncio HTTP/1.1 loop, so that on a 2-core machine the proxies,
not the client, set the pace. Kinds:

- `models`: `GET /v1/models` (a tiny JSON answer),
- `json`: a short `POST /v1/responses` with `"stream": false` (one JSON answer),
- `sse`: a short streamed `POST /v1/responses` (5 SSE events, no spacing).

Reported per kind: the median requests/s of each proxy over the rounds, their ratio, the median of the
per-round (paired) ratios, and each proxy process's CPU time per request, with ctxscope's recording
process apart (from /proc; less sensitive to what else the machine runs), and how long after the load
the recording process was done with it (it runs as background work, so on a saturated machine it falls
behind and catches up after; its CPU per request includes the catch-up, and the next measurement waits
for it). The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
AUTH = "Bearer sk-proj-benchmarkNotARealKey0123456789abcdefghijklmnop"
"""A key-shaped Authorization header, as a real client sends: the recorder redacts it every request."""

_BODY_JSON = b'{"model":"gpt-bench","input":[{"type":"message","role":"user","content":"hi"}],"stream":false}'
_BODY_SSE = b'{"model":"gpt-bench","input":[{"type":"message","role":"user","content":"hi"}],"stream":true}'
KINDS: dict[str, tuple[str, str, bytes]] = {
    "models": ("GET", "/v1/models", b""),
    "json": ("POST", "/v1/responses", _BODY_JSON),
    "sse": ("POST", "/v1/responses?fast", _BODY_SSE),
}
_LENGTH = re.compile(rb"\r\ncontent-length:\s*(\d+)", re.IGNORECASE)
_CHUNKED = re.compile(rb"\r\ntransfer-encoding:\s*chunked", re.IGNORECASE)


def _request_bytes(kind: str, port: int) -> bytes:
    method, path, body = KINDS[kind]
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: bench-throughput\r\n"
    head += f"Accept: */*\r\nAuthorization: {AUTH}\r\n"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


async def _read_response(reader: asyncio.StreamReader) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    if head[9:12] != b"200":
        raise RuntimeError(f"unexpected answer: {head.splitlines()[0].decode('latin-1')}")
    if _CHUNKED.search(head):
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            await reader.readexactly(size + 2)  # the chunk and its CRLF (the last: the empty trailer)
            if size == 0:
                return
    length = _LENGTH.search(head)
    if length is None:
        raise RuntimeError("an answer with neither a length nor chunks")
    await reader.readexactly(int(length.group(1)))


async def _load(port: int, kind: str, connections: int, seconds: float) -> tuple[int, float]:
    """(requests answered, seconds taken) of `connections` keep-alive connections sending back to back."""
    request = _request_bytes(kind, port)
    deadline = 0.0
    counts = [0] * connections

    async def one(index: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(request)  # one request before the clock starts: the connection is warm
            await _read_response(reader)
            await ready.wait()
            while time.perf_counter() < deadline:
                writer.write(request)
                await _read_response(reader)
                counts[index] += 1
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    ready = asyncio.Event()
    tasks = [asyncio.ensure_future(one(i)) for i in range(connections)]
    await asyncio.sleep(0.2)  # let every connection open and send its warm-up request
    start = time.perf_counter()
    deadline = start + seconds
    ready.set()
    await asyncio.gather(*tasks)
    return sum(counts), time.perf_counter() - start


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Process:
    """A proxy (or the upstream) in a process of its own."""

    name: str
    command: list[str]
    port: int
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    cwd: Path | None = None
    """Where it runs (`python -m` puts it first on the path: a checkout's own packages)."""
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> Process:
        self._errors = tempfile.TemporaryFile()  # not a pipe: nobody reads it while the proxy runs
        self.process = subprocess.Popen(
            self.command,
            env=self.env,
            cwd=self.cwd,
            stdout=subprocess.DEVNULL,
            stderr=self._errors,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self._errors.seek(0)
                error = self._errors.read().decode(errors="replace")
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}: {error.strip()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.name} did not start listening within 30 s")

    def cpu_s(self) -> tuple[float, float]:
        """CPU seconds (user + system, all threads) the process, and its children (ctxscope's recording
        process), have used so far."""
        assert self.process is not None
        family = _family(self.process.pid)
        return _cpu_s(family[0]), sum(_cpu_s(pid) for pid in family[1:])

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGINT)  # Ctrl-C: ctxscope finishes its recording and exits
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self._errors.close()


def _family(pid: int) -> list[int]:
    """`pid` and its descendants (Linux /proc)."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                found += _family(int(child))
    return found


def _cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # ended meanwhile
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Upstream:
    """`benchmarks._upstream` in its own process: it prints its URL and serves until stdin closes."""

    def __init__(self) -> None:
        self.url = ""
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Upstream:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks._upstream"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=Path(__file__).parent.parent,
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().decode().strip()
        if not self.url.startswith("http://"):
            raise RuntimeError("the benchmark upstream did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(10)


def mitmdump(upstream: str, confdir: Path) -> Process:
    port = _free_port()
    binary = Path(sys.executable).with_name("mitmdump")
    command = [str(binary), "-q", "--mode", f"reverse:{upstream}", "--listen-host", "127.0.0.1"]
    command += ["--listen-port", str(port), "--set", f"confdir={confdir}"]
    # the same relay as ctxscope's: every body streamed, connections opened when a request needs one
    command += ["--set", "stream_large_bodies=1", "--set", "connection_strategy=lazy"]
    return Process("mitmdump", command, port)


def ctxscope_proxy(upstream: str, out: Path, checkout: Path | None = None) -> Process:
    """`ctxscope proxy` of this checkout, or of `checkout` (its packages first on the path; bytecode in
    a private cache, so nothing is written into it)."""
    port = _free_port()
    command = [sys.executable, "-m", "ctxscope.cli", "proxy", "--upstream", upstream]
    command += ["--listen", f"127.0.0.1:{port}", "--out", str(out)]
    env = {**os.environ, "CTXSCOPE_HOME": str(out.parent / "home")}
    if checkout is None:
        return Process("ctxscope proxy", command, port, env)
    env |= {"PYTHONPATH": str(checkout), "PYTHONPYCACHEPREFIX": str(out.parent / "pycache")}
    return Process("baseline", command, port, env, cwd=checkout)


def _load_avg() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min, {os.cpu_count()} cores)"


CATCH_UP_LIMIT_S = 60.0
IDLE_WINDOW_S = 0.25


def measure(proxy: Process, kind: str, connections: int, seconds: float) -> dict[str, float]:
    """One load of `proxy`; then, for ctxscope, the wait until its recording process has written what the
    load sent (it is background work and may fall behind while the machine is saturated): its CPU per
    request counts that catch-up, and the next measurement starts only after it."""
    own_before, children_before = proxy.cpu_s()
    count, elapsed = asyncio.run(_load(proxy.port, kind, connections, seconds))
    own, children = proxy.cpu_s()
    ended, catch_up = time.perf_counter(), 0.0
    if children > 0:
        deadline = ended + CATCH_UP_LIMIT_S
        while time.perf_counter() < deadline:  # idle: no CPU tick over a whole window
            time.sleep(IDLE_WINDOW_S)
            _, now = proxy.cpu_s()
            if now - children < 0.01:
                break
            children = now
        catch_up = max(0.0, time.perf_counter() - ended - IDLE_WINDOW_S)
    per_request = 1000 / max(count, 1)
    return {
        "rps": count / elapsed,
        "proxy_cpu_ms": (own - own_before) * per_request,
        "recording_cpu_ms": (children - children_before) * per_request,
        "catch_up_s": catch_up,
        "requests": count,
    }


def run(
    rounds: int, seconds: float, connections: list[int], kinds: list[str], baseline: Path | None = None
) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="ctxscope-throughput-"))
    report: dict[str, Any] = {"rounds": rounds, "seconds": seconds, "load_before": _load_avg()}
    print(f"requests/s through bare mitmdump and ctxscope proxy, {rounds} rounds of {seconds:g} s ({_load_avg()})")
    with Upstream() as upstream:
        bare = mitmdump(upstream.url, tmp / "confdir").start()
        ours = ctxscope_proxy(upstream.url, tmp / "throughput.jsonl").start()
        proxies = [bare, ours]
        if baseline is not None:
            (tmp / "base").mkdir()
            proxies.append(ctxscope_proxy(upstream.url, tmp / "base" / "throughput.jsonl", baseline).start())
        try:
            for kind in kinds:  # warm them all (imports, first connections) before anything is timed
                for proxy in proxies:
                    measure(proxy, kind, 1, 0.3)
            samples: dict[tuple[str, int, str], list[dict[str, float]]] = {}
            for index in range(rounds):
                for kind in kinds:
                    for conns in connections:
                        order = proxies if index % 2 == 0 else proxies[::-1]
                        for proxy in order:
                            samples.setdefault((kind, conns, proxy.name), []).append(
                                measure(proxy, kind, conns, seconds)
                            )
                print(f"  round {index + 1} done ({_load_avg()})")
        finally:
            for proxy in proxies[::-1]:
                proxy.stop()
    report["load_after"] = _load_avg()
    rows = []
    head = f"{'kind':<8} {'conns':>5} {'mitmdump':>10} {'ctxscope':>10}  ratio  paired"
    print(head + "  CPU ms/req: mitmdump / ctxscope + recorder  recording done after the load (max)")
    for kind in kinds:
        for conns in connections:
            a, b = samples[(kind, conns, bare.name)], samples[(kind, conns, ours.name)]
            a_rps = statistics.median(s["rps"] for s in a)
            b_rps = statistics.median(s["rps"] for s in b)
            paired = statistics.median(y["rps"] / x["rps"] for x, y in zip(a, b, strict=True))
            a_cpu = statistics.median(s["proxy_cpu_ms"] for s in a)
            b_cpu = statistics.median(s["proxy_cpu_ms"] for s in b)
            b_rec = statistics.median(s["recording_cpu_ms"] for s in b)
            b_lag = max(s["catch_up_s"] for s in b)
            row = {
                "kind": kind,
                "connections": conns,
                "mitmdump_rps": round(a_rps, 1),
                "ctxscope_rps": round(b_rps, 1),
                "ratio": round(b_rps / a_rps, 3),
                "paired_ratio": round(paired, 3),
                "mitmdump_cpu_ms": round(a_cpu, 3),
                "ctxscope_cpu_ms": round(b_cpu, 3),
                "ctxscope_recording_cpu_ms": round(b_rec, 3),
                "ctxscope_recording_catch_up_s_max": round(b_lag, 2),
                "rounds_rps": {bare.name: [round(s["rps"], 1) for s in a], ours.name: [round(s["rps"], 1) for s in b]},
            }
            if baseline is not None:
                c = samples[(kind, conns, "baseline")]
                c_rps = statistics.median(s["rps"] for s in c)
                row["baseline_rps"] = round(c_rps, 1)
                row["baseline_ratio"] = round(c_rps / a_rps, 3)
                row["baseline_paired_ratio"] = round(
                    statistics.median(z["rps"] / x["rps"] for x, z in zip(a, c, strict=True)), 3
                )
                row["baseline_cpu_ms"] = round(statistics.median(s["proxy_cpu_ms"] for s in c), 3)
                row["baseline_recording_cpu_ms"] = round(statistics.median(s["recording_cpu_ms"] for s in c), 3)
                row["baseline_recording_catch_up_s_max"] = round(max(s["catch_up_s"] for s in c), 2)
                row["rounds_rps"]["baseline"] = [round(s["rps"], 1) for s in c]
            rows.append(row)
            print(
                f"{kind:<8} {conns:>5} {a_rps:>10.1f} {b_rps:>10.1f}  {row['ratio']:.3f}  {paired:.3f}   "
                f"{a_cpu:.3f} / {b_cpu:.3f} + {b_rec:.3f}   {b_lag:.2f} s"
            )
            if baseline is not None:
                print(
                    f"{'  baseline':<14} {row['baseline_rps']:>21.1f}  {row['baseline_ratio']:.3f}  "
                    f"{row['baseline_paired_ratio']:.3f}   {row['baseline_cpu_ms']:.3f} + "
                    f"{row['baseline_recording_cpu_ms']:.3f}   {row['baseline_recording_catch_up_s_max']:.2f} s"
                )
    print(report["load_after"])
    report["rows"] = rows
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "throughput.json").write_text(json.dumps(report, indent=2))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="3 rounds of 1 s")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each measurement (default 3)")
    parser.add_argument("--connections", type=int, nargs="+", default=[1, 4], help="client connections")
    parser.add_argument("--kinds", nargs="+", choices=list(KINDS), default=list(KINDS), help="request kinds")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="also run `ctxscope proxy` of this checkout (e.g. `git archive main | tar -x -C DIR`), interleaved",
    )
    args = parser.parse_args()
    if args.rounds < 1 or args.seconds <= 0 or min(args.connections) < 1:
        parser.error("--rounds and --connections must be at least 1, --seconds above 0")
    rounds, seconds = (3, 1.0) if args.quick else (args.rounds, args.seconds)
    run(rounds, seconds, args.connections, args.kinds, args.baseline)


if __name__ == "__main__":
    main()

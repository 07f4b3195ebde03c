"""No silent data loss: a second writer is refused, a full disk is reported and survived, SIGTERM is named.

Real `ctxscope proxy` subprocesses (the process boundary is what these test: signals, exit codes, a
file-size limit).
"""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from ctxscope.proxy.store import RecordingWriter, read_recording
from ctxscope.proxy.testing import FakeUpstream, JsonReply, SseReply, response_stream, text_message
from tests.proxy.store.test_writer_secrets import _exchange
from tests.proxy.test_capture_cli import LINE_TIMEOUT_S, Proc, _ctxscope, _start, env, run  # noqa: F401 - fixtures


def test_a_second_writer_in_this_process_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with RecordingWriter(path) as first:
        first.write(_exchange({}, "one"))
        with pytest.raises(Exception, match=r"is being recorded by this process \(pid \d+\)"):
            RecordingWriter(path)
        first.write(_exchange({}, "two"))
    with RecordingWriter(path) as later:  # nobody holds it: appended, never truncated
        later.write(_exchange({}, "three"))
    contents = [e.request_body["input"][0]["content"] for e in read_recording(path).exchanges]
    assert contents == ["one", "two", "three"]


def test_a_second_proxy_on_the_same_file_is_refused_naming_the_holder(
    upstream: FakeUpstream,
    run: list[Proc],  # noqa: F811
    env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    out = tmp_path / "same.jsonl"
    proc, url, _ = _start(run, env, "--upstream", upstream.url, "--out", str(out))
    assert (
        httpx.post(f"{url}/v1/responses", json={"model": "m", "input": "first"}, timeout=20).status_code
        == 200
    )
    proc.expect(r"^exchange 0  POST")
    before = out.read_bytes()
    # another process (the lock is between processes); bounded, since a second writer that is not
    # refused would run until stopped
    second = subprocess.run(
        _ctxscope("proxy", "--listen", "127.0.0.1:0", "--out", str(out)),
        capture_output=True,
        text=True,
        env=env,
        timeout=LINE_TIMEOUT_S,
    )
    assert second.returncode == 2
    assert second.stderr.strip().splitlines() == [
        f"error: {out} is being recorded by another ctxscope (pid {proc.popen.pid}); "
        "stop it first or choose another output file"
    ]
    assert out.read_bytes() == before
    proc.popen.send_signal(signal.SIGINT)
    assert proc.popen.wait(timeout=LINE_TIMEOUT_S) == 0
    # a later run appends to it
    proc2, url2, _ = _start(run, env, "--upstream", upstream.url, "--out", str(out))
    assert (
        httpx.post(f"{url2}/v1/responses", json={"model": "m", "input": "second"}, timeout=20).status_code
        == 200
    )
    proc2.expect(r"^exchange 1  POST")
    proc2.popen.send_signal(signal.SIGINT)
    assert proc2.popen.wait(timeout=LINE_TIMEOUT_S) == 0
    assert [e.request_body["input"] for e in read_recording(out).exchanges] == ["first", "second"]


class _Stderr:
    """The stderr lines of a running Proc, read on a thread (the Proc reads only stdout)."""

    def __init__(self, proc: Proc) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        assert proc.popen.stderr is not None
        stream = proc.popen.stderr
        self._thread = threading.Thread(
            target=lambda: [self.lines.put(x.rstrip("\n")) for x in stream], daemon=True
        )
        self._thread.start()

    def expect(self, pattern: str) -> str:
        while True:
            line = self.lines.get(timeout=LINE_TIMEOUT_S)
            self.seen.append(line)
            if re.search(pattern, line):
                return line

    def rest(self) -> list[str]:
        self._thread.join(timeout=LINE_TIMEOUT_S)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return self.seen


def test_a_full_disk_is_reported_at_once_and_the_proxy_keeps_relaying(
    upstream: FakeUpstream,
    run: list[Proc],  # noqa: F811
    env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    out = tmp_path / "full.jsonl"
    limit = 6000  # bytes: the header and a few exchanges fit, then every write fails (RLIMIT_FSIZE)
    code = (
        f"import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
        "from ctxscope.cli import main; sys.argv = ['ctxscope'] + sys.argv[1:]; main()"
    )
    # -B: a module first imported under the size limit would get a truncated .pyc in the source tree
    args = [sys.executable, "-B", "-c", code, "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream.url]
    proc = Proc([*args, "--out", str(out)], env)
    run.append(proc)
    errors = _Stderr(proc)
    proc.expect(r"^recording to ")
    url = proc.expect(r"^listening on (http://127\.0\.0\.1:\d+) ").group(1)
    statuses = []
    with httpx.Client(base_url=f"{url}/v1", timeout=20) as client:
        for n in range(8):
            upstream.reply(JsonReply({"id": f"resp_{n}", "output": [], "status": "completed"}))
            body = {"model": "m", "input": [{"type": "message", "role": "user", "content": f"{n} " * 600}]}
            statuses.append(client.post("/responses", json=body).status_code)
            if n == 5:  # said while the proxy runs, not at the end
                errors.expect(r"^ctxscope: cannot write .*full\.jsonl: File too large; holding exchanges")
    assert statuses == [200] * 8  # every client request was relayed
    proc.popen.send_signal(signal.SIGINT)
    assert proc.popen.wait(timeout=LINE_TIMEOUT_S) == 0
    summary = proc.expect(r"^stopped; (\d+) exchange\(s\) recorded")
    written = int(summary.group(1))
    lines = errors.rest()
    assert not any("Traceback" in line for line in lines)
    assert sum("cannot write" in line for line in lines) == 1  # once, with the cause
    lost = [line for line in lines if line.startswith("warning:")]
    assert lost == [f"warning: {8 - written} exchange(s) could not be written (File too large)"]
    assert 0 < written < 8 and len(read_recording(out).exchanges) == written


def test_sigterm_names_in_flight_exchanges_interrupted_by_shutdown(
    upstream: FakeUpstream,
    run: list[Proc],  # noqa: F811
    env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    out = tmp_path / "term.jsonl"
    proc, url, _ = _start(run, env, "--upstream", upstream.url, "--out", str(out))
    upstream.reply(SseReply(response_stream(text_message("never finished")), gated=True))
    with pytest.raises(httpx.HTTPError):
        with httpx.stream("POST", f"{url}/v1/responses", json={"model": "m", "input": "x"}, timeout=20) as r:
            for line in r.iter_lines():
                if line.startswith("data:"):
                    proc.popen.send_signal(signal.SIGTERM)
                    assert proc.popen.wait(timeout=LINE_TIMEOUT_S) == 0
    upstream.gate.release(100)
    (ex,) = read_recording(out).exchanges
    assert ex.error is not None and ex.error.kind == "shutdown"
    assert ex.error.message.startswith("interrupted by shutdown")

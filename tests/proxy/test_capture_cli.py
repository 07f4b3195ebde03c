"""`ctxscope proxy` as a real subprocess: start-up line, live lines, SIGINT, SIGKILL, port taken;
and the Recorder under plain `mitmdump -s proxy/recorder.py`."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, response_stream, text_message
from tests.cli_support import run_cli

LINE_TIMEOUT_S = 30.0


class Proc:
    """A subprocess whose stdout lines are read on a thread, so every wait can be bounded."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.popen = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, pattern: str) -> re.Match[str]:
        """Read lines until one matches `pattern` (bounded by LINE_TIMEOUT_S per line)."""
        while True:
            try:
                line = self.lines.get(timeout=LINE_TIMEOUT_S)
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r}; saw {self.seen}") from None
            if line is None:
                raise AssertionError(
                    f"process ended before {pattern!r}; saw {self.seen}, stderr {self.stderr()}"
                )
            self.seen.append(line)
            if m := re.search(pattern, line):
                return m

    def stderr(self) -> str:
        assert self.popen.stderr is not None
        if self.popen.poll() is None:
            return "<running>"
        return self.popen.stderr.read()

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait(timeout=LINE_TIMEOUT_S)
        self._reader.join(timeout=LINE_TIMEOUT_S)
        for stream in (self.popen.stdout, self.popen.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def env(ctxscope_home: Path) -> dict[str, str]:
    return {**os.environ, "CTXSCOPE_HOME": str(ctxscope_home), "PYTHONUNBUFFERED": "1"}


@pytest.fixture
def run(env: dict[str, str]) -> Iterator[list[Proc]]:
    procs: list[Proc] = []
    yield procs
    for proc in procs:
        proc.stop()


def _ctxscope(*args: str) -> list[str]:
    return [sys.executable, "-m", "ctxscope.cli", *args]


def _start(run: list[Proc], env: dict[str, str], *args: str) -> tuple[Proc, str, Path]:
    proc = Proc(_ctxscope("proxy", "--listen", "127.0.0.1:0", *args), env)
    run.append(proc)
    path = Path(proc.expect(r"^recording to (.+)$").group(1))
    url = proc.expect(r"^listening on (http://127\.0\.0\.1:\d+) ").group(1)
    proc.expect(r"Ctrl-C to stop")
    return proc, url, path


def test_start_prints_the_path_live_lines_and_sigint_stops_cleanly(
    upstream: FakeUpstream, run: list[Proc], env: dict[str, str], ctxscope_home: Path
) -> None:
    proc, url, path = _start(run, env, "--upstream", upstream.url)
    assert path.parent == ctxscope_home / "recordings"  # default: a new file in the recordings dir
    r = httpx.post(f"{url}/v1/responses", json={"model": "gpt-cli", "input": "hi"}, timeout=20)
    assert r.status_code == 200
    proc.expect(r"^exchange 0  POST  /v1/responses  200  gpt-cli  in 10  out 5  \d+\.\d\d s$")
    proc.popen.send_signal(signal.SIGINT)
    assert proc.popen.wait(timeout=LINE_TIMEOUT_S) == 0
    proc.expect(rf"^stopped; 1 exchange\(s\) recorded in {re.escape(str(path))}$")
    assert "Traceback" not in proc.stderr()
    (ex,) = read_recording(path).exchanges
    assert ex.request_body == {"model": "gpt-cli", "input": "hi"}
    assert read_recording(path).header.meta["upstream"] == upstream.url


def test_the_hint_gives_the_base_url_that_fits_the_upstream_path(
    upstream: FakeUpstream, run: list[Proc], env: dict[str, str]
) -> None:
    """A ChatGPT-backend upstream has no /v1: the printed base URL reaches its /responses."""
    proc = Proc(
        _ctxscope("proxy", "--listen", "127.0.0.1:0", "--upstream", f"{upstream.url}/backend-api/codex"), env
    )
    run.append(proc)
    base = proc.expect(r"^listening on \S+ → \S+ \(point clients at (\S+)\)$").group(1)
    assert not base.endswith("/v1")
    assert httpx.post(f"{base}/responses", json={"model": "m"}, timeout=20).status_code == 200
    assert upstream.requests[-1].path == "/backend-api/codex/responses"
    proc.popen.send_signal(signal.SIGINT)
    assert proc.popen.wait(timeout=LINE_TIMEOUT_S) == 0


def test_port_taken_is_a_one_line_error_with_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "never.jsonl"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_cli("proxy", "--listen", f"127.0.0.1:{port}", "--out", str(out))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: cannot listen on 127.0.0.1:{port}: the port is already in use; choose another with --listen"
    ]
    assert not out.exists()


def test_bad_listen_value_is_a_one_line_error() -> None:
    done = run_cli("proxy", "--listen", "localhost:http")
    assert done.returncode == 2
    assert done.stderr.startswith("error: bad --listen") and len(done.stderr.strip().splitlines()) == 1


def test_forward_mode_prints_ca_and_env_lines(
    run: list[Proc], env: dict[str, str], ctxscope_home: Path
) -> None:
    proc = Proc(_ctxscope("proxy", "--mode", "forward", "--listen", "127.0.0.1:0"), env)
    run.append(proc)
    proc.expect(r"^recording to ")
    m = proc.expect(r"^forward proxy on (http://127\.0\.0\.1:\d+); CA certificate: (.+)$")
    url, ca = m.group(1), Path(m.group(2))
    assert ca == ctxscope_home / "mitmproxy" / "mitmproxy-ca-cert.pem" and ca.exists()
    proc.expect(rf"^  export HTTPS_PROXY={re.escape(url)}$")
    proc.expect(rf"^  export SSL_CERT_FILE={re.escape(str(ca))}$")
    proc.expect(rf"^  export CODEX_CA_CERTIFICATE={re.escape(str(ca))}$")
    proc.popen.send_signal(signal.SIGTERM)  # a service manager's stop is as clean as Ctrl-C
    assert proc.popen.wait(timeout=LINE_TIMEOUT_S) == 0
    proc.expect(r"^stopped; 0 exchange\(s\) recorded in ")


def test_sigkill_mid_session_leaves_complete_exchanges_loadable(
    upstream: FakeUpstream, run: list[Proc], env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "killed.jsonl"
    proc, url, path = _start(run, env, "--upstream", upstream.url, "--out", str(out))
    assert path == out
    with httpx.Client(base_url=f"{url}/v1", timeout=20) as client:
        for n in range(3):
            body = {
                "model": "m",
                "input": [{"type": "message", "role": "user", "content": f"turn {n} " * 50}],
            }
            assert client.post("/responses", json=body).status_code == 200
            proc.expect(rf"^exchange {n}  POST  /v1/responses  200 ")  # printed after the line was written
        # A fourth stream is in flight (its first event received) when the writer dies.
        upstream.reply(SseReply(response_stream(text_message("interrupted")), gated=True))
        with pytest.raises(httpx.HTTPError):
            with client.stream("POST", "/responses", json={"model": "m", "input": "last"}) as r:
                for line in r.iter_lines():
                    if line.startswith("data:"):
                        os.killpg(proc.popen.pid, signal.SIGKILL)
                        proc.popen.wait(timeout=LINE_TIMEOUT_S)
                        upstream.gate.release(100)
    recording = read_recording(out)
    assert [e.id for e in recording.exchanges] == [0, 1, 2]
    for n, ex in enumerate(recording.exchanges):
        assert ex.status == 200 and ex.response is not None and ex.response["status"] == "completed"
        assert ex.request_body["input"][0]["content"] == f"turn {n} " * 50


def test_recorder_works_under_plain_mitmdump(
    upstream: FakeUpstream, run: list[Proc], env: dict[str, str], tmp_path: Path
) -> None:
    import ctxscope.proxy.recorder

    out = tmp_path / "mitmdump.jsonl"
    mitmdump = Path(sys.executable).parent / "mitmdump"
    proc = Proc(
        [
            str(mitmdump),
            "-s",
            ctxscope.proxy.recorder.__file__,
            "--set",
            f"ctxscope_out={out}",
            "--set",
            f"confdir={tmp_path / 'mitm'}",
            "--mode",
            f"reverse:{upstream.url}",
            "--listen-host",
            "127.0.0.1",
            "--listen-port",
            "0",
            "--flow-detail",
            "0",
        ],
        env,
    )
    run.append(proc)
    port = proc.expect(r"listening at (?:http://)?127\.0\.0\.1:(\d+)").group(1)
    events = response_stream(text_message("via mitmdump", chunks=3))
    upstream.reply(SseReply(events, gated=True))
    received = 0
    with httpx.stream("POST", f"http://127.0.0.1:{port}/v1/responses", json={"model": "md"}, timeout=20) as r:
        for line in r.iter_lines():
            if line.startswith("data:"):
                received += 1
                upstream.gate.release()
    assert received == len(events)
    proc.popen.send_signal(signal.SIGINT)
    proc.popen.wait(timeout=LINE_TIMEOUT_S)
    (ex,) = read_recording(out).exchanges
    assert ex.request_body == {"model": "md"}
    assert [json.loads(e.data)["type"] for e in ex.sse] == [e["type"] for e in events]


def test_a_bad_capture_pattern_is_a_one_line_error(tmp_path: Path) -> None:
    out = tmp_path / "never.jsonl"
    result = run_cli("proxy", "--mode", "forward", "--only", "https://chatgpt.com", "--out", str(out))
    assert result.returncode == 2
    assert result.stderr.startswith("error: bad --only or --exclude: bad capture pattern 'https://chatgpt.com'")
    assert len(result.stderr.strip().splitlines()) == 1 and not out.exists()

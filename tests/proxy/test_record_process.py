"""Recording in a process of its own (`RecordingProcess`): the file's contract holds as with the thread.

A real mitmproxy on loopback relays to a local upstream; the recorder hands each finished flow to the
child process, which redacts and writes it. Checked: every exchange in the file in the order the flows
finished, redacted (the planted key never reaches the disk), callbacks seeing each exchange's glimpse,
bodies larger than the pipe, a second writer refused naming the proxy's process, the proxy's process
dying (the child writes what reached it), and the child dying (traffic goes on, the failure is said).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from ctxscope.proxy.errors import RecordingError
from ctxscope.proxy.model import Exchange
from ctxscope.proxy.record_process import RecordingProcess
from ctxscope.proxy.recorder import Recorder, build_exchange
from ctxscope.proxy.runner import ProxyServer
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream

SECRET = "sk-proj-PLANTEDprocess0001abcdefghijklmnop"
TIMEOUT = 30.0


def _fields(index: int) -> dict[str, object]:
    return {
        "id": index,
        "started_at": 1.0 + index,
        "ended_at": 2.0 + index,
        "method": "GET",
        "url": f"http://127.0.0.1:9/v1/models?n={index}",
        "endpoint": "models",
        "status": 200,
        "request_headers": {"authorization": f"Bearer {SECRET}"},
        "meta": {"transport": "http"},
    }


def test_a_proxy_recording_in_its_own_process_writes_every_exchange_redacted_in_order(tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    seen: list[Exchange] = []
    writer = RecordingProcess(out, meta={"test": True})
    recorder = Recorder(writer, on_exchange=seen.append)
    big = {"model": "gpt-test", "input": [{"type": "message", "role": "user", "content": "x" * 3_000_000}]}
    with FakeUpstream() as upstream, ProxyServer([recorder], upstream=upstream.url) as proxy:
        headers = {"authorization": f"Bearer {SECRET}"}
        with httpx.Client(base_url=proxy.url, timeout=TIMEOUT, headers=headers) as client:
            assert client.get("/v1/models").status_code == 200
            body = {"model": "gpt-test", "input": [{"type": "message", "role": "user", "content": SECRET}]}
            with client.stream("POST", "/v1/responses", json={**body, "stream": True}) as response:
                streamed = b"".join(response.iter_raw())
            assert b"response.completed" in streamed
            assert client.post("/v1/responses", json=big).status_code == 200  # larger than the pipe
        assert recorder.wait_for(3, TIMEOUT)
    assert recorder.drain(TIMEOUT)
    writer.close()
    assert recorder.failures == []
    assert (writer.exchanges_written, writer.held, writer.dropped) == (3, 0, 0)

    recording = read_recording(out)
    assert [e.endpoint for e in recording.exchanges] == ["models", "responses", "responses"]
    assert [e.id for e in recording.exchanges] == [0, 1, 2]
    assert len(recording.exchanges[1].sse) > 2
    assert recording.exchanges[2].request_body == big
    assert SECRET.encode() not in out.read_bytes()
    # the callback saw each exchange as it was written, without the bulky parts
    assert [e.id for e in seen] == [0, 1, 2]
    assert seen[1].sse == [] and seen[1].request_body == {"model": "gpt-test", "input": [], "stream": True}
    assert seen[2].request_body == {"model": "gpt-test", "input": []}


def test_a_second_recording_process_on_the_same_file_is_refused_naming_this_process(tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    first = RecordingProcess(out)
    try:
        with pytest.raises(RecordingError, match=f"being recorded by this process \\(pid {os.getpid()}\\)"):
            RecordingProcess(out)
    finally:
        first.close()
    second = RecordingProcess(out)  # the lock went with the first
    second.close()
    assert read_recording(out).exchanges == []


def test_an_unwritable_recording_raises_the_os_error_in_the_proxy_process(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(OSError):
        RecordingProcess(tmp_path / "file" / "rec.jsonl")


def test_when_the_proxy_process_dies_the_child_still_writes_every_exchange_it_was_given(tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    script = textwrap.dedent(
        f"""
        import os, sys
        from ctxscope.proxy.record_process import RecordingProcess
        from ctxscope.proxy.recorder import build_exchange
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_record_process import _fields
        writer = RecordingProcess({str(out)!r})
        for index in range(50):
            writer.submit(build_exchange, _fields(writer.next_id()))
        print(writer._child.pid, flush=True)
        os._exit(9)  # no close: as if the proxy's process were killed
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 9, proc.stderr
    child = int(proc.stdout.strip())
    _wait_gone(child)
    recording = read_recording(out)
    assert [e.id for e in recording.exchanges] == list(range(50))
    assert SECRET.encode() not in out.read_bytes()


def test_when_the_recording_process_dies_the_proxy_says_so_once_and_goes_on(tmp_path: Path) -> None:
    writer = RecordingProcess(tmp_path / "rec.jsonl")
    writer.submit(build_exchange, _fields(writer.next_id()))
    assert writer.wait_for(1, TIMEOUT)
    os.kill(writer._child.pid, signal.SIGKILL)
    writer._child.wait(TIMEOUT)
    for _ in range(3):
        writer.submit(build_exchange, _fields(writer.next_id()))  # never raises
    assert not writer.wait_for(4, 2.0)
    writer.close()
    gone = [f for f in writer.failures if "recording process ended unexpectedly" in f]
    assert len(gone) == 1
    assert [e.id for e in read_recording(tmp_path / "rec.jsonl").exchanges] == [0]


def test_learnt_environment_credentials_are_redacted_by_the_child(tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    token = "tok-" + "Zq8" * 12
    writer = RecordingProcess(out)
    writer.learn_environment({"MY_SERVICE_TOKEN": token})
    fields = _fields(writer.next_id())
    fields["url"] = f"http://127.0.0.1:9/v1/models?t={token}"
    writer.submit(build_exchange, fields)
    writer.close()
    assert token.encode() not in out.read_bytes()
    assert json.loads(out.read_text().splitlines()[-1])["kind"] == "exchange"


def _wait_gone(pid: int) -> None:
    """The orphaned child ends on its own once it has written everything (bounded wait)."""
    import time

    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return
        time.sleep(0.05)
    raise AssertionError(f"recording process {pid} still running")


@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="no Linux autogroup on this machine")
def test_the_recording_process_is_background_work_in_a_scheduling_group_of_its_own(tmp_path: Path) -> None:
    # Its own session is its own autogroup: nice alone would rank it only against itself (see `_background`).
    writer = RecordingProcess(tmp_path / "rec.jsonl", {})
    try:
        pid = writer._child.pid
        assert os.getsid(pid) == pid != os.getsid(0)
        assert Path(f"/proc/{pid}/autogroup").read_text().split()[-1] == "10"
        assert os.getpriority(os.PRIO_PROCESS, pid) >= 10
        writer.submit(build_exchange, _fields(writer.next_id()))
        assert writer.drain(TIMEOUT)
    finally:
        writer.close()
    assert len(read_recording(tmp_path / "rec.jsonl").exchanges) == 1

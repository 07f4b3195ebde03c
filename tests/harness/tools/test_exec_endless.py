"""A command that never stops writing (`yes`) costs the agent a bounded amount of memory, measured from
/proc while the real `ctxscope agent` runs it, and the call's output says what was cut in Codex's words.
Polling the still-running session with write_stdin is bounded the same way."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

from tools_support import call, make_router

from ctxscope.harness.tools.command_output import READ_CAP, HeadTail
from tests.harness.harness_support import make_repo, write_script

MEMORY_BOUND_KB = 256 * 1024
"""The agent's peak resident memory running `yes` for 3 s (it was 3.4 GB; an idle agent is ~100 MB)."""
TRUNCATED = re.compile(r"…(\d+) tokens truncated…")


def _peak_rss_kb(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int, subprocess.CompletedProcess[str]]:
    """Run `argv`; its peak resident memory (VmHWM from /proc, read until it exits) and its result."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    deadline = time.monotonic() + timeout
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                with open(f"/proc/{proc.pid}/status") as status:
                    for line in status:
                        if line.startswith("VmHWM:"):
                            peak = max(peak, int(line.split()[1]))
            except OSError:
                pass
            time.sleep(0.05)
        out, err = proc.communicate(timeout=max(deadline - time.monotonic(), 1))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return peak, subprocess.CompletedProcess(argv, proc.returncode, out, err)


def test_yes_through_the_agent_stays_under_a_memory_bound(tmp_path: Path, ctxscope_home: Path) -> None:
    repo = make_repo(tmp_path)
    call_ = {"name": "exec_command", "arguments": {"cmd": "yes", "yield_time_ms": 3000}}
    script = write_script(tmp_path / "s.json", [{"output": [{"function_call": call_}]}, {"text": "done"}])
    argv = [sys.executable, "-m", "ctxscope.cli", "agent", "--provider", "script", "--script", str(script)]
    argv += ["-p", "go", "--no-capture", "--cwd", str(repo)]
    peak, result = _peak_rss_kb(argv, {**os.environ, "CTXSCOPE_HOME": str(ctxscope_home)}, timeout=180)
    assert result.returncode == 0 and result.stdout == "done\n", result.stderr
    assert 0 < peak < MEMORY_BOUND_KB, f"peak {peak} kB"
    (session,) = (ctxscope_home / "sessions").glob("*.jsonl")
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    outputs = [
        e["payload"]["item"]["output"]
        for e in entries
        if e["type"] == "response_item" and e["payload"]["item"].get("type") == "function_call_output"
    ]
    (output,) = outputs
    header, _, body = output.partition("\nOutput:\n")
    assert "Process running with session ID 1" in header  # still writing when the yield time passed
    written = int(re.search(r"Original token count: (\d+)", header)[1])  # type: ignore[index]
    cut = TRUNCATED.findall(body)
    assert len(cut) == 1 and int(cut[0]) < written and written * 4 > READ_CAP
    head, tail = TRUNCATED.split(body)[0], TRUNCATED.split(body)[2]
    assert head.endswith("y\ny\n") and tail.startswith("y\n") and set(tail) == {"y", "\n"}
    assert len(body) < 10_000 * 4 + 100  # the default budget of a call


def test_polling_an_endless_command_is_bounded_too(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    try:
        first = call(router, "exec_command", {"cmd": "yes x", "yield_time_ms": 1000, "login": False})
        assert "Process running with session ID 1" in first
        for _ in range(2):
            polled = call(
                router, "write_stdin", {"session_id": 1, "yield_time_ms": 1000, "max_output_tokens": 200}
            )
            assert "Process running with session ID 1" in polled
            body = polled.partition("\nOutput:\n")[2]
            (cut,) = TRUNCATED.findall(body)
            assert int(cut) > 0 and len(body) < 200 * 4 + 100
            assert body.startswith("x\n") and body.endswith("x\n")
    finally:
        router.close()


def test_head_and_tail_are_the_streams_own_at_every_cut() -> None:
    # Random chunkings of a known stream: what is kept is exactly its first and last bytes, at the
    # reader's cap and after narrowing to a call's budget, and the count is of every byte.
    rng = random.Random(7)
    stream = bytes(rng.randrange(256) for _ in range(50_000))
    for cap, budget in ((1_000, 300), (10_000, 10_000), (100_000, 2_000), (64, 63), (200_000, 150_000)):
        sink = HeadTail(cap)
        at = 0
        while at < len(stream):
            size = rng.choice((1, 7, 100, 4096, 20_000))
            sink.feed(stream[at : at + size])
            at += size
        assert sink.total == len(stream)
        half = cap // 2
        assert bytes(sink.head) == stream[:half] and sink.tail == stream[half:][-half:]
        assert sink.kept() == stream[:half] + stream[half:][-half:]
        narrow, small = sink.narrowed(budget), budget // 2
        assert bytes(narrow.head) == stream[:small] and narrow.tail == stream[small:][-small:]
        assert narrow.omitted == max(len(stream) - 2 * small, 0)


def test_a_cut_never_splits_a_character() -> None:
    sink = HeadTail(11)  # halves of 5 bytes: "ééé" is 6 bytes, so both cuts fall inside a character
    sink.feed("ééé".encode() + b"x" * 100 + "ééé".encode())
    text = sink.text()
    assert "\ufffd" not in text
    assert text == f"éé…{(sink.omitted + 3) // 4} tokens truncated…éé"

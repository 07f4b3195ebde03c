"""exec_command sessions and write_stdin, with real processes: a call returns at its yield time or
when the command exits; a running command is a session that write_stdin polls or types into;
whatever a command leaves running (background jobs, setsid/nohup children) is killed when it
exits or when the agent does, and the output names it."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_tools_exec import parse
from tools_support import call, make_router

from ctxscope.harness.tools import ToolRouter

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process tracking reads /proc")


def _exited(pid: int) -> bool:
    """Whether `pid` has exited; waits on a pidfd (an event, not a sleep), bounded as a guard."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], 30)
        return bool(readable)
    finally:
        os.close(fd)


def _session(status: str) -> int:
    match = re.fullmatch(r"Process running with session ID (\d+)", status)
    assert match, status
    return int(match.group(1))


def _start(router: ToolRouter, cmd: str, **args: object) -> tuple[int, str]:
    """Start `cmd` (plain `bash -c`: a login profile's speed is not under test) expecting a session;
    its id and first output."""
    out = call(router, "exec_command", {"cmd": cmd, "login": False, "yield_time_ms": 200, **args})
    status, _, body = parse(out)
    return _session(status), body


def _poll_until(router: ToolRouter, started: tuple[int, str], done: Callable[[str], bool]) -> str:
    """Poll the session until `done(output so far)`; bounded, each poll waits for output or exit."""
    session, seen = started
    for _ in range(20):
        if done(seen):
            return seen
        status, _, body = parse(call(router, "write_stdin", {"session_id": session, "yield_time_ms": 1000}))
        seen += body
        assert status.startswith("Process running"), (status, seen)
    raise AssertionError(f"gave up waiting; output so far: {seen!r}")


def test_a_running_command_becomes_a_session_that_write_stdin_feeds(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    # The command waits for input, so the call returns at its yield time with a session id.
    started = _start(router, "echo ready; read name; echo hello $name", tty=True)
    _poll_until(router, started, lambda out: "ready" in out)
    session = started[0]
    # Typing a line ends the command: its answer and exit code come back, the session is gone.
    args = {"session_id": session, "chars": "ada\n", "yield_time_ms": 20_000}
    status, _, body = parse(call(router, "write_stdin", args))
    assert status == "Process exited with code 0"
    assert "hello ada" in body
    out = call(router, "write_stdin", {"session_id": session, "chars": ""})
    assert out.startswith(f"no running session {session}")


def test_polling_collects_later_output(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    fifo = tmp_path / "go"
    os.mkfifo(fifo)
    started = _start(router, f"echo one; cat {fifo}; echo two")
    assert _poll_until(router, started, lambda out: "one" in out) == "one\n"
    session = started[0]
    fifo.write_text("")  # open and close the fifo: cat sees end of file and the command goes on
    status, _, body = parse(call(router, "write_stdin", {"session_id": session, "yield_time_ms": 20_000}))
    assert (status, body) == ("Process exited with code 0", "two\n")


def test_typing_needs_a_terminal(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    session, _ = _start(router, "sleep 30")
    out = call(router, "write_stdin", {"session_id": session, "chars": "x"})
    assert out.startswith(f"session {session} was started without tty=true")
    router.close()


def test_detached_children_are_killed_and_named_when_the_command_exits(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    # Both children outlive the shell; the setsid one leaves its process group and keeps stdout open
    # (issue 14: this used to hold the call until a timeout).
    cmd = "setsid sleep 60 & echo $! > a.pid; nohup sleep 61 >/dev/null 2>&1 & echo $! > b.pid; echo started"
    out = call(router, "exec_command", {"cmd": cmd, "login": False, "yield_time_ms": 60_000})
    status, _, body = parse(out)
    assert status == "Process exited with code 0" and body == "started\n"
    pids = [int((tmp_path / name).read_text()) for name in ("a.pid", "b.pid")]
    assert all(_exited(pid) for pid in pids)
    assert "Killed" not in call(router, "exec_command", {"cmd": "true", "login": False})
    cmd = "setsid sleep 62 & echo $! > c.pid"
    out = call(router, "exec_command", {"cmd": cmd, "login": False, "yield_time_ms": 60_000})
    pid = int((tmp_path / "c.pid").read_text())
    assert f"Killed processes the command left running: {pid} (sleep)" in out
    assert _exited(pid)


def test_closing_the_router_kills_running_sessions(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    started = _start(router, "setsid sleep 60 & echo $! > a.pid; echo go; sleep 60")
    _poll_until(router, started, lambda out: "go" in out)
    pid = int((tmp_path / "a.pid").read_text())
    router.close()  # the agent exits
    assert _exited(pid)


def test_interrupting_a_call_kills_the_command(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    tool = router.tools["exec_command"]
    sessions = tool.sessions  # type: ignore[attr-defined]
    session = sessions.start(["bash", "-c", "sleep 60"], tmp_path, dict(os.environ), False)
    original = session.wait

    def interrupted(seconds: float) -> bool:
        raise KeyboardInterrupt

    session.wait = interrupted  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        sessions.collect(session, 10)
    session.wait = original  # type: ignore[method-assign]
    assert _exited(session.proc.pid) and session.id not in sessions.sessions


def test_a_child_that_drops_the_marker_and_detaches_is_still_killed_and_named(tmp_path: Path) -> None:
    """Issue 20: without the marker variable and in a session of its own, the child used to hold the
    call for its whole life (45 s) and was never named; the wrapper, a subreaper, still has it."""
    router = make_router(tmp_path)
    cmd = "(unset CTXSCOPE_EXEC_SESSION; setsid sh -c 'echo $$ > s.pid; exec sleep 45' &); echo x"
    started = time.monotonic()
    out = call(router, "exec_command", {"cmd": cmd, "login": False, "yield_time_ms": 1000})
    took = time.monotonic() - started
    pid = int((tmp_path / "s.pid").read_text())
    assert "Process exited with code 0" in out and out.endswith("x\n")
    assert f"Killed processes the command left running: {pid} (sleep)" in out
    assert took < 5, took  # about the yield time at most, not the child's 45 s
    assert _exited(pid)
    router.close()


def test_a_session_started_from_a_finished_thread_keeps_running(tmp_path: Path) -> None:
    """The parent-death signal also fires when only the agent thread that started the wrapper ends
    (tool batches run on worker threads); the session must live on."""
    router = make_router(tmp_path)
    started: list[tuple[int, str]] = []
    worker = threading.Thread(target=lambda: started.append(_start(router, "echo go; sleep 30")))
    worker.start()
    worker.join()
    session, _ = started[0]
    status, _, body = parse(call(router, "write_stdin", {"session_id": session, "yield_time_ms": 300}))
    assert status == f"Process running with session ID {session}", body
    router.close()


_AGENT = """
import os, sys, time
from pathlib import Path
from ctxscope.harness.tools.exec_sessions import SessionManager

cwd = Path(sys.argv[1])
manager = SessionManager()
cmd = "(unset CTXSCOPE_EXEC_SESSION; setsid sh -c 'echo $$ > d.pid; exec sleep 45' &); "
cmd += "echo $$ > s.pid; exec sleep 45"
manager.start(["bash", "-c", cmd], cwd, dict(os.environ), False)
for _ in range(400):
    if (cwd / "d.pid").exists() and (cwd / "s.pid").exists():
        break
    time.sleep(0.025)
print("ready", flush=True)
sys.stdin.read()
"""


def test_a_killed_agent_leaves_no_process_behind(tmp_path: Path) -> None:
    """kill -9 of the agent: each wrapper gets its parent-death signal and kills its whole tree,
    the detached child that dropped the marker included."""
    agent = subprocess.Popen(
        [sys.executable, "-c", _AGENT, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert agent.stdout is not None and agent.stdout.readline() == "ready\n"
        pids = [int((tmp_path / name).read_text()) for name in ("s.pid", "d.pid")]
        agent.kill()
        agent.wait()
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()
        assert agent.stdin is not None and agent.stdout is not None
        agent.stdin.close()
        agent.stdout.close()
    assert all(_exited(pid) for pid in pids)


def test_ctrl_c_typed_into_a_terminal_session_stops_its_command(tmp_path: Path) -> None:
    """The wrapper gives the command the terminal as its controlling one, so Ctrl-C reaches it
    (the wrapper itself ignores it)."""
    router = make_router(tmp_path)
    started = _start(router, "echo go; sleep 30; echo after", tty=True)
    _poll_until(router, started, lambda out: "go" in out)
    out = call(router, "write_stdin", {"session_id": started[0], "chars": "\u0003", "yield_time_ms": 5000})
    status, _, body = parse(out)
    assert status == "Process exited with code -2" and "after" not in body, out
    router.close()

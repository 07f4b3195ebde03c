"""The OS sandbox of exec_command, probed with real escapes: each one fails in the kernel, and the
output says the sandbox refused it.

The workspace is `ws`; `outside` sits next to it under the test's tmp directory and is not a
writable root (the roots are given explicitly, since /tmp itself is one by default)."""

from __future__ import annotations

import os
import re
import select
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tools_support import call, make_router

from ctxscope.harness.sandbox import (
    Capabilities,
    SandboxPolicy,
    capabilities,
    enforcement,
    launcher,
    policy_for,
)
from ctxscope.harness.sandbox.launcher import wrapper_argv, wrapper_fds
from ctxscope.harness.tools import ToolRouter
from ctxscope.harness.tools.exec_sessions import SessionManager

CAPS = capabilities() if sys.platform.startswith("linux") else Capabilities()
needs_landlock = pytest.mark.skipif(not CAPS.landlock, reason="this kernel has no Landlock")
needs_namespaces = pytest.mark.skipif(not CAPS.namespaces, reason="no unprivileged user namespaces")
WAIT = {"login": False, "yield_time_ms": 60_000}
EXIT = re.compile(r"^Process exited with code (-?\d+)$", re.MULTILINE)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws" / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "ws" / ".git" / "config").write_text("[core]\n")
    (tmp_path / "outside").mkdir()
    return tmp_path / "ws"


@pytest.fixture
def outside(ws: Path) -> Path:
    return ws.parent / "outside"


@pytest.fixture
def router(ws: Path) -> Iterator[ToolRouter]:
    r = make_router(ws, writable_roots=[ws])
    yield r
    r.close()


def run(router: ToolRouter, cmd: str) -> tuple[int, str]:
    """Run `cmd` to its end: (exit code, whole output)."""
    out = call(router, "exec_command", {"cmd": cmd, **WAIT})
    found = EXIT.search(out)
    assert found, out
    return int(found.group(1)), out


def refused(router: ToolRouter, cmd: str) -> str:
    """Run `cmd`, which the sandbox must make fail with its note; the output."""
    code, out = run(router, cmd)
    assert code != 0, out
    assert "Sandbox: the command ran in the `workspace-write` sandbox" in out, out
    return out


@needs_landlock
def test_writes_inside_the_roots_work(router: ToolRouter, ws: Path) -> None:
    code, out = run(router, "echo ok > inside.txt && mkdir d && mv inside.txt d/ && cat d/inside.txt")
    assert code == 0 and out.endswith("ok\n") and "Sandbox:" not in out


@needs_landlock
def test_a_write_outside_the_roots_fails(router: ToolRouter, outside: Path) -> None:
    out = refused(router, f"echo x > {outside}/f")
    assert "Permission denied" in out and not (outside / "f").exists()


@needs_landlock
def test_a_symlink_out_of_the_workspace_does_not_escape(router: ToolRouter, ws: Path, outside: Path) -> None:
    (ws / "link").symlink_to(outside / "target")
    (ws / "dirlink").symlink_to(outside)
    refused(router, "echo x > link")
    refused(router, "echo x > dirlink/f")
    assert list(outside.iterdir()) == []


@needs_landlock
def test_proc_self_paths_do_not_escape(router: ToolRouter, outside: Path) -> None:
    refused(router, f"echo x > /proc/self/root{outside}/a")
    refused(router, "echo x > /proc/self/cwd/../outside/b")
    assert list(outside.iterdir()) == []


@needs_landlock
def test_a_python_child_is_confined_too(router: ToolRouter, outside: Path) -> None:
    out = refused(router, f"{sys.executable} -c \"open('{outside}/py', 'w')\"")
    assert "PermissionError" in out and not (outside / "py").exists()


@needs_landlock
def test_a_detached_child_is_confined_too(router: ToolRouter, ws: Path, outside: Path) -> None:
    # setsid -w: a new session, waited for; then a double fork whose grandchild reports back.
    out = refused(router, f"setsid -w sh -c 'echo x > {outside}/s'")
    assert "Permission denied" in out
    cmd = f"( ( {sys.executable} -c \"open('{outside}/d', 'w')\" 2> err.txt; echo $? > rc.txt ) & ); "
    cmd += "for i in $(seq 200); do [ -s rc.txt ] && break; sleep 0.05; done; cat err.txt; exit $(cat rc.txt)"
    out = refused(router, cmd)
    assert "PermissionError" in out and list(outside.iterdir()) == []


@needs_namespaces
def test_git_inside_the_workspace_is_read_only(router: ToolRouter, ws: Path) -> None:
    out = refused(router, "echo 'rm -rf ~' > .git/hooks/pre-commit")
    assert "Read-only file system" in out and not (ws / ".git" / "hooks" / "pre-commit").exists()
    refused(router, "echo '[core] fsmonitor = evil' >> .git/config")
    assert (ws / ".git" / "config").read_text() == "[core]\n"
    code, out = run(router, "cat .git/config")  # reading it is fine
    assert code == 0 and "[core]" in out


@needs_namespaces
def test_no_network_not_even_loopback(ws: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        connect = f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5)\""
        router = make_router(ws, writable_roots=[ws])
        try:
            out = refused(router, connect)
            assert "Error" in out
            out = refused(router, f"echo hi > /dev/tcp/127.0.0.1/{port}")
        finally:
            router.close()
        readable, _, _ = select.select([server], [], [], 0)
        assert readable == []  # nothing ever reached the listener
        # With network access on, the same command connects: the test can see a connection.
        open_router = make_router(ws, writable_roots=[ws], network_access=True)
        try:
            code, out = run(open_router, connect)
        finally:
            open_router.close()
        assert code == 0, out
        readable, _, _ = select.select([server], [], [], 5)
        assert readable == [server]
        conn, _ = server.accept()
        conn.close()


@needs_landlock
def test_an_approved_escalation_runs_outside_the_sandbox(ws: Path, outside: Path) -> None:
    from tools_support import Approver

    router = make_router(ws, writable_roots=[ws], approver=Approver(True))
    try:
        args = {"cmd": f"echo x > {outside}/ok", "sandbox_permissions": "require_escalated", **WAIT}
        out = call(router, "exec_command", {**args, "justification": "write a file the user asked for"})
    finally:
        router.close()
    assert "Approval: approved by the user" in out and (outside / "ok").read_text() == "x\n"


def test_danger_full_access_is_unconfined(ws: Path, outside: Path) -> None:
    router = make_router(ws, sandbox_mode="danger-full-access")
    try:
        code, out = run(router, f"echo x > {outside}/free")
    finally:
        router.close()
    assert code == 0 and (outside / "free").exists() and "Sandbox:" not in out


@needs_landlock
def test_workdir_outside_runs_confined_to_the_roots(router: ToolRouter, outside: Path) -> None:
    """The sandbox follows the policy, not the directory a command starts in."""
    code, out = run(router, "pwd")
    assert code == 0
    out = call(router, "exec_command", {"cmd": "echo x > here", "workdir": str(outside), **WAIT})
    assert "Sandbox:" in out and not (outside / "here").exists()
    assert os.listdir(outside) == []


@needs_landlock
def test_read_only_allows_no_writes_at_all(ws: Path, outside: Path, tmp_path: Path) -> None:
    """The read-only policy, run through the sessions exec_command uses: no write anywhere, /tmp
    and the workspace included; reading and /dev/null still work."""
    manager = SessionManager()
    policy = policy_for("read-only", [str(ws)], network=False, caps=CAPS)
    cmd = f"cat .git/config > /dev/null && echo read; echo x > f; echo y > {tmp_path}/t; mkdir {outside}/d"
    session = manager.start(["bash", "-c", cmd], ws, {"PATH": os.environ["PATH"]}, False, policy)
    snap = manager.collect(session, 60)
    manager.close()
    text = snap.output.kept().decode()
    assert snap.exit is not None and snap.exit.code != 0
    assert text.startswith("read\n") and text.count("Permission denied") == 3, text
    assert not (ws / "f").exists() and not (tmp_path / "t").exists() and list(outside.iterdir()) == []


def test_a_command_that_cannot_be_confined_is_not_run(ws: Path) -> None:
    """Fail closed: when a promised layer cannot be set up, the command does not run unconfined."""
    manager = SessionManager()
    # A `.git` that cannot be bound read-only (a dangling link) makes the mount layer fail.
    (ws / "lost").symlink_to(ws / "nowhere")
    policy = SandboxPolicy(writable=(str(ws),), network=False, protect_git=(str(ws / "lost"),))
    session = manager.start(
        ["bash", "-c", "echo ran > ran.txt"], ws, {"PATH": os.environ["PATH"]}, False, policy
    )
    snap = manager.collect(session, 60)
    manager.close()
    assert snap.exit is not None and snap.exit.code == 126
    assert "sandbox: could not confine the command" in snap.output.kept().decode() and not (ws / "ran.txt").exists()


@pytest.mark.parametrize(
    "args", [["--bogus", "--", "true"], ["--confine"], ["--grace", "soon", "--", "true"]]
)
def test_the_wrapper_refuses_bad_options_in_one_line(args: list[str]) -> None:
    done = subprocess.run(
        wrapper_argv(args), pass_fds=wrapper_fds(), capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("ctxscope.harness.sandbox.exec: ") and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.skipif(CAPS.landlock_abi < 6, reason="signal scoping needs Landlock ABI 6")
def test_a_confined_command_cannot_kill_the_wrapper_that_tracks_it(router: ToolRouter, ws: Path) -> None:
    """Killing the wrapper would orphan what the command started beyond tracking; the kernel
    refuses the signal (Landlock scopes signals to the command's own domain)."""
    cmd = "setsid sh -c 'echo $$ > c.pid; exec sleep 40' & "
    cmd += "for i in $(seq 200); do [ -s c.pid ] && break; sleep 0.05; done; kill -KILL $PPID; echo kill=$?"
    code, out = run(router, cmd)
    pid = int((ws / "c.pid").read_text())
    assert "Operation not permitted" in out and "kill=1" in out, out
    assert f"Killed processes the command left running: {pid} (sleep)" in out


@needs_landlock
def test_an_ordinary_failure_gets_no_sandbox_note(router: ToolRouter) -> None:
    code, out = run(router, "echo nothing to see; exit 3")
    assert code == 3 and "Sandbox:" not in out


@needs_landlock
def test_what_is_typed_into_a_session_is_confined_too(router: ToolRouter, outside: Path) -> None:
    """write_stdin feeds a shell started by exec_command; that shell is inside the sandbox."""
    out = call(
        router, "exec_command", {"cmd": "bash --norc -i", "tty": True, "login": False, "yield_time_ms": 500}
    )
    running = re.search(r"Process running with session ID (\d+)", out)
    assert running, out
    session = int(running.group(1))
    seen = ""
    typed = f"echo x > {outside}/typed; echo rc=$?\n"
    for _ in range(20):  # bounded: each poll waits for output
        seen += call(router, "write_stdin", {"session_id": session, "chars": typed, "yield_time_ms": 1000})
        typed = ""
        if "rc=1" in seen:
            break
    assert "Permission denied" in seen and "rc=1" in seen, seen
    assert not (outside / "typed").exists()


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="no memfd here")
def test_a_rewritten_wrapper_source_does_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A confined command may write the workspace, and ctxscope's own source may be in it: the
    wrapper runs the code the agent read at its start, from a sealed memfd, never the files."""
    source = tmp_path / "sandbox-src"
    shutil.copytree(Path(launcher.__file__).parent, source)
    monkeypatch.setattr(launcher, "_HERE", str(source))
    monkeypatch.setattr(launcher, "_tried", False)
    monkeypatch.setattr(launcher, "_memfd", None)
    (fd,) = launcher.wrapper_fds()  # compiled now, from the untouched copy
    marker = tmp_path / "hijacked"
    (source / "exec.py").write_text(f"open({str(marker)!r}, 'w').close()\ndef main():\n    return 0\n")
    with pytest.raises(OSError):
        os.pwrite(fd, b"x", 0)  # sealed: not even the agent can change it
    done = subprocess.run(
        launcher.wrapper_argv(["--", "sh", "-c", "echo ran; exit 7"]),
        pass_fds=(fd,),
        capture_output=True,
        text=True,
        check=False,
    )
    os.close(fd)
    assert done.returncode == 7 and done.stdout == "ran\n" and not marker.exists()


@pytest.mark.skipif(CAPS.landlock_abi < 4, reason="Landlock network rules need ABI 4")
def test_without_namespaces_landlock_still_blocks_tcp_and_says_what_is_left(ws: Path) -> None:
    """The fallback a kernel without user namespaces gets (run here for real, with the namespaces
    left out): TCP fails by Landlock's network rules, and the sentence names what is not held."""
    caps = Capabilities(CAPS.landlock_abi, namespaces=False)
    assert enforcement("workspace-write", False, caps) == (
        "The operating system enforces this: writes outside the writable roots fail (Landlock); TCP "
        "connections fail (Landlock). Not enforced here: read-only `.git` (no user namespaces), UDP and "
        "other non-TCP network (no user namespaces); keep to these rules yourself."
    )
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        router = make_router(ws, writable_roots=[ws], os_sandbox=caps)
        try:
            connect = (
                f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5)\""
            )
            out = refused(router, connect)
        finally:
            router.close()
        assert "PermissionError" in out and "TCP connections fail (Landlock)" in out
        readable, _, _ = select.select([server], [], [], 0)
        assert readable == []


def test_the_wrapper_report_reads_back() -> None:
    from ctxscope.harness.sandbox.exec import format_report, parse_report

    left = {41: "sleep", 42: "my worker (x)", 43: "two\nlines"}
    assert parse_report(format_report(-9, left)) == (-9, {41: "sleep", 42: "my worker (x)", 43: "two?lines"})
    assert parse_report(format_report(None, {})) == (None, {})
    assert parse_report("") is None  # a wrapper killed before it wrote anything

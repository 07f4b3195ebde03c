"""Running commands as sessions: Codex's exec_command / write_stdin model.

A command starts as a real subprocess in its own process group and session, with stderr merged
into stdout (through a pseudo-terminal when `tty` is asked for, so `write_stdin` can type into it;
otherwise stdin is closed). A reader thread collects its output, bounded (`command_output.HeadTail`:
the first and last bytes since the last call, the rest only counted). A call waits until the command
exits (plus a short grace for the last output) or until its yield time passes; a command still
running then stays alive as a session with a small numeric id that `write_stdin` polls or feeds.

Every command runs under the sandbox wrapper (`ctxscope.harness.sandbox.exec`), which confines it by the
session's `SandboxPolicy` (Landlock, namespaces) and tracks every process it starts: the wrapper
is a child subreaper, so a child that leaves with `setsid`, a double fork or `nohup` is still
beneath it, and no environment variable can opt out. When the command exits, what it left
behind is killed after a short grace and named in the wrapper's report; ending a session (Ctrl-C
while waiting, the agent exiting) kills its whole tree; a killed agent's wrappers get a
parent-death signal and kill theirs. The older marker variable (`CTXSCOPE_EXEC_SESSION=<token>`)
is still set and scanned for, as a second net.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import pty
import secrets
import select
import signal
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from ctxscope.harness.sandbox.exec import parse_report
from ctxscope.harness.sandbox.policy import SandboxPolicy
from ctxscope.harness.sandbox.support import wrap_command
from ctxscope.harness.tools.base import ToolError
from ctxscope.harness.tools.command_output import READ_CAP, HeadTail

__all__ = [
    "MARKER_ENV",
    "TRACK_ONLY",
    "ExecSession",
    "Exit",
    "SessionManager",
    "Snapshot",
    "tracked_processes",
]

MARKER_ENV = "CTXSCOPE_EXEC_SESSION"
EXIT_GRACE_S = 0.25
"""After the command exits, how long to wait for output still in flight (children may hold the
pipe; they are killed after this)."""
MAX_SESSIONS = 16
READ_CHUNK = 1 << 20
"""Bytes one read takes (the pipe is enlarged to it where the kernel allows)."""
DRAIN_PAUSE_S = 0.004
"""The reader's pause after each `READ_CHUNK` bytes once the output is past what a call can show (at
most `READ_CHUNK / DRAIN_PAUSE_S`, 250 MB/s, is read then: a command that writes faster waits)."""
STOP_WAIT_S = 5.0
"""How long an ended session's wrapper gets to kill its tree before it is killed itself."""
TRACK_ONLY = SandboxPolicy(confine=False, network=True, landlock=False, namespaces=False)
"""No confinement, only process tracking (danger-full-access, an approved escalation)."""
_PROC = Path("/proc")
_LIVE: weakref.WeakSet[SessionManager] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """A harness that exits without closing its router still leaves no command running."""
    for manager in list(_LIVE):
        manager.close()


def tracked_processes(token: str) -> dict[int, str]:
    """Live processes whose environment carries `token` (pid → command name); {} without /proc."""
    found: dict[int, str] = {}
    needle = f"{MARKER_ENV}={token}".encode()
    try:
        entries = list(_PROC.iterdir())
    except OSError:
        return found
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            if needle not in environ.split(b"\0"):
                continue
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone, or not ours to read
        if ") Z " in stat:  # a zombie is already dead; its parent reaps it
            continue
        found[int(entry.name)] = (entry / "comm").read_text().strip() if (entry / "comm").exists() else "?"
    return found


@dataclass
class Exit:
    """How a session ended."""

    code: int | None
    killed: dict[int, str] = field(default_factory=dict)
    """Processes the command left behind that were killed (pid → name)."""


@dataclass
class Snapshot:
    """What one call saw: the output since the previous call and whether the command still runs."""

    output: HeadTail
    """At most `READ_CAP` bytes of it (head and tail), and how much there was."""
    exit: Exit | None


class ExecSession:
    """One running command."""

    def __init__(
        self,
        session_id: int,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        tty: bool,
        policy: SandboxPolicy = TRACK_ONLY,
    ) -> None:
        self.id = session_id
        self.tty = tty
        self.policy = policy
        self.token = secrets.token_hex(8)
        self._buffer = HeadTail(READ_CAP)  # bounded: a command may write without end
        self._lock = threading.Lock()
        self._eof = threading.Event()
        self._master: int | None = None
        self._report: tuple[int | None, dict[int, str]] | None = None
        env = {**env, MARKER_ENV: self.token}
        report_read, report_write = os.pipe()
        self._report_fd: int | None = report_read
        wrapped, inherited = wrap_command(argv, policy, report_write, grace=EXIT_GRACE_S)
        try:
            if tty:
                master, slave = pty.openpty()
                try:
                    self.proc = subprocess.Popen(
                        wrapped,
                        cwd=cwd,
                        env=env,
                        stdin=slave,
                        stdout=slave,
                        stderr=slave,
                        start_new_session=True,
                        pass_fds=inherited,
                    )
                finally:
                    os.close(slave)
                self._master = master
            else:
                self.proc = subprocess.Popen(
                    wrapped,
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    pass_fds=inherited,
                )
        except OSError as e:
            if self._master is not None:
                os.close(self._master)
            os.close(report_read)
            raise ToolError(f"could not start {argv[0]}: {e}") from e
        finally:
            os.close(report_write)
        self._pidfd: int | None = None
        with contextlib.suppress(OSError, AttributeError):  # Linux 5.3+; elsewhere Popen's own wait
            self._pidfd = os.pidfd_open(self.proc.pid)
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _read(self) -> bytes:
        if self._master is not None:
            try:
                return os.read(self._master, READ_CHUNK)
            except OSError:  # EIO: every holder of the terminal is gone
                return b""
        assert self.proc.stdout is not None
        return os.read(self.proc.stdout.fileno(), READ_CHUNK)

    def _pump(self) -> None:
        if self.proc.stdout is not None and hasattr(fcntl, "F_SETPIPE_SZ"):
            with contextlib.suppress(OSError):  # fewer, larger reads of a command that writes a lot
                fcntl.fcntl(self.proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, READ_CHUNK)
        unpaused = 0  # bytes read since the last pause
        try:
            while chunk := self._read():
                with self._lock:
                    self._buffer.feed(chunk)
                    cutting = self._buffer.omitted > 0
                unpaused += len(chunk)
                if cutting and unpaused >= READ_CHUNK:
                    # Past what a call can show, the output is only counted: reading it flat out
                    # would take a core and starve the agent's other threads of the GIL, so the
                    # command waits on its full pipe a moment instead (it runs on, slower). Counted
                    # in bytes, not reads: a terminal hands over a few KB per read.
                    time.sleep(DRAIN_PAUSE_S)
                    unpaused = 0
        finally:
            self._eof.set()

    def write(self, chars: str) -> None:
        """Type `chars` into the command's terminal."""
        if self._master is None:
            raise ToolError(
                f"session {self.id} was started without tty=true, so its stdin is closed; poll it with "
                "empty chars, or start the command again with tty=true to type into it"
            )
        try:
            os.write(self._master, chars.encode("utf-8"))
        except OSError as e:
            raise ToolError(f"could not write to session {self.id}: {e}") from e

    def take(self) -> HeadTail:
        """The output collected since the last call (its head and tail, and how much there was)."""
        with self._lock:
            data, self._buffer = self._buffer, HeadTail(READ_CAP)
        return data

    def wait(self, seconds: float) -> bool:
        """Wait up to `seconds` for the command to exit; True when it has."""
        if self._pidfd is not None and self.proc.returncode is None:
            # Woken by the exit itself: Popen.wait(timeout) polls with sleeps of up to 50 ms,
            # which every short command would pay on top of its own run.
            try:
                readable, _, _ = select.select([self._pidfd], [], [], max(seconds, 0))
            except InterruptedError:
                readable = []
            if not readable:
                return False
        try:
            self.proc.wait(timeout=max(seconds, 0))
        except subprocess.TimeoutExpired:
            return False
        return True

    def report(self) -> tuple[int | None, dict[int, str]] | None:
        """The wrapper's report once it exited: (exit code, what it killed: pid → name); None when
        it gave none (it was killed itself)."""
        if self._report_fd is not None:
            chunks = []
            with contextlib.suppress(OSError):
                while chunk := os.read(self._report_fd, 65536):
                    chunks.append(chunk)
            os.close(self._report_fd)
            self._report_fd = None
            with contextlib.suppress(ValueError):
                self._report = parse_report(b"".join(chunks).decode("utf-8", "replace"))
        return self._report

    def _left(self) -> dict[int, str]:
        report = self.report()
        return dict(report[1]) if report else {}

    def finish(self) -> Exit:
        """After the command exited: let in-flight output arrive, then name what it left behind
        (the wrapper killed it) and kill anything that still carries the marker."""
        self._eof.wait(EXIT_GRACE_S)
        killed = {**self._left(), **self._kill_marked()}
        self._eof.wait(EXIT_GRACE_S)
        self._close()
        report = self.report()
        code = report[0] if report and report[0] is not None else self.proc.returncode
        return Exit(code, killed)

    def _kill_marked(self) -> dict[int, str]:
        """The second net: only when the wrapper gave no report (it was killed itself), scan /proc
        for the marker and kill what carries it."""
        if self.report():
            return {}
        leftover = tracked_processes(self.token)
        leftover.pop(self.proc.pid, None)
        for pid in leftover:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        return leftover

    def kill_all(self) -> dict[int, str]:
        """Kill the command and every process it started: the wrapper kills its tree on SIGTERM
        (it is killed itself if it does not exit in time); the processes killed, pid → name."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                self.proc.terminate()
            try:
                self.proc.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.kill()
                self.proc.wait()
        return {**self._left(), **self._kill_marked()}

    def _close(self) -> None:
        self._reader.join(EXIT_GRACE_S)
        if self._master is not None:
            with contextlib.suppress(OSError):
                os.close(self._master)
            self._master = None
        if self.proc.stdout is not None:
            with contextlib.suppress(OSError):
                self.proc.stdout.close()
        if self._report_fd is not None and self.proc.poll() is not None:
            self.report()
        if self._pidfd is not None and self.proc.returncode is not None:
            os.close(self._pidfd)
            self._pidfd = None


class SessionManager:
    """The sessions of one agent: started by exec_command, polled by write_stdin, all killed at exit."""

    def __init__(self) -> None:
        self.sessions: dict[int, ExecSession] = {}
        self._next = 1
        _LIVE.add(self)

    def start(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        tty: bool,
        policy: SandboxPolicy = TRACK_ONLY,
    ) -> ExecSession:
        if len(self.sessions) >= MAX_SESSIONS:
            running = ", ".join(str(i) for i in self.sessions)
            raise ToolError(
                f"{MAX_SESSIONS} commands are still running (sessions {running}); finish or stop one "
                'with write_stdin (e.g. send Ctrl-C as chars "\\u0003") before starting another'
            )
        session = ExecSession(self._next, argv, cwd, env, tty, policy)
        self._next += 1
        self.sessions[session.id] = session
        return session

    def get(self, session_id: int) -> ExecSession:
        session = self.sessions.get(session_id)
        if session is None:
            running = ", ".join(str(i) for i in self.sessions) or "none"
            raise ToolError(f"no running session {session_id} (running: {running}); it may have exited")
        return session

    def collect(self, session: ExecSession, yield_s: float) -> Snapshot:
        """Wait for exit or `yield_s`, whichever is first; an exited session is ended and dropped."""
        try:
            exited = session.wait(yield_s)
        except BaseException:  # Ctrl-C while waiting: do not leave the command running
            self.end(session)
            raise
        if not exited:
            return Snapshot(session.take(), None)
        result = session.finish()
        self.sessions.pop(session.id, None)
        return Snapshot(session.take(), result)

    def end(self, session: ExecSession) -> dict[int, str]:
        """Kill a session and everything it started."""
        killed = session.kill_all()
        session._close()
        self.sessions.pop(session.id, None)
        return killed

    def close(self) -> None:
        """Kill every session (the agent is exiting)."""
        for session in list(self.sessions.values()):
            self.end(session)

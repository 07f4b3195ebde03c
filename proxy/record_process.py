"""Recording in a process of its own, so the proxy's process does nothing per exchange but relay it.

Building an exchange, redacting it and writing it cost about as much CPU as mitmproxy's own relay of a
short request. On a thread of the proxy's process that work shares the GIL and the process's CPU with
mitmproxy's event loop, and short requests went through at 0.70-0.83x bare mitmproxy's rate
(`benchmarks/bench_throughput.py`). Here the proxy's loop hands each finished flow's plain data (the
recorder's builder and its arguments, pickled) to a child process over a pipe and goes on:

    parent (proxy loop)  --job frames-->  child (polls every POLL_S): build, redact, RecordingWriter.write
    parent (reader)      <--results---    (batched: about every RESULT_INTERVAL_S)

The recording file's contract holds as with the worker thread: only the child writes the file, through
`RecordingWriter` (redacted before writing, each exchange in one write, in the order flows finished);
closing sends the rest, the child writes it and closes the recording before `close` returns. The pipe
is written without blocking from the loop (what does not fit waits for the loop's writer callback), so
a slow disk never stalls the relay. If the proxy's process dies, the child still writes every job that
reached the pipe; if the child dies, the proxy keeps relaying and says once that recording stopped.
The proxy's process opens and locks the file (a second writer's error names the proxy) and the child
writes through that descriptor. The child runs niced in a session of its own (see `__init__`); when it
falls behind, jobs wait in the pipe and then in the parent's memory, as they waited in the thread's
queue before.

`on_exchange` callbacks get each exchange as a *glimpse* (`glimpse`): its fields without the bulky
parts (input items, instructions, tools, output, SSE events, frames, texts), which is what a live log
or a counter reads, sent back in batches by a reader thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxscope.proxy.errors import RecordingError
from ctxscope.proxy.model import Exchange
from ctxscope.proxy.write_worker import WriteWorker, wait_until

if TYPE_CHECKING:
    from ctxscope.proxy.redact.redactor import Redactor

__all__ = ["RecordingProcess", "glimpse"]

POLL_S = 0.02
"""How often the child looks for new jobs. It polls rather than waits on the pipe: a write that wakes a
waiting reader costs the proxy's loop a context switch per exchange on a busy machine; this way the
loop's write only copies the frame into the pipe."""
RESULT_INTERVAL_S = 0.05
"""How long the child collects results before it sends them back (the parent's reader wakes this often)."""
NICE = 10
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 120.0
_PIPE_SIZE = 1 << 20  # ask Linux for a 1 MiB pipe: most jobs then go out in one write
_F_SETPIPE_SZ = 1031
_HEADER = 8
_READ_SIZE = 1 << 16
"""Bytes asked of one `os.read`. Not more: CPython allocates what is asked before it reads, and a request
of 128 KiB or more is an mmap and munmap of its own (measured: 17 µs a read of a 300-byte frame asked
as 1 MiB, 0.9 µs asked as 64 KiB); a larger frame simply takes more reads."""


def _frame(obj: Any) -> bytes:
    payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return len(payload).to_bytes(_HEADER, "little") + payload


class _FrameReader:
    """Reads length-prefixed pickles from a file descriptor (blocking)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()

    def pending(self) -> bool:
        """Whether a whole frame is already buffered."""
        if len(self._buffer) < _HEADER:
            return False
        return len(self._buffer) >= _HEADER + int.from_bytes(self._buffer[:_HEADER], "little")

    def fill(self) -> bool | None:
        """Read what has arrived (a non-blocking fd): True if something did, None at the end."""
        arrived = False
        while True:
            try:
                chunk = os.read(self.fd, _READ_SIZE)
            except BlockingIOError:
                return arrived
            if not chunk:
                return None if not arrived else True
            self._buffer += chunk
            arrived = True

    def read(self) -> Any:
        """The next object, or raises EOFError when the other end closed (a blocking fd)."""
        while not self.pending():
            chunk = os.read(self.fd, _READ_SIZE)
            if not chunk:
                raise EOFError
            self._buffer += chunk
        size = int.from_bytes(self._buffer[:_HEADER], "little")
        payload = bytes(self._buffer[_HEADER : _HEADER + size])
        del self._buffer[: _HEADER + size]
        return pickle.loads(payload)


def glimpse(exchange: Exchange) -> Exchange:
    """`exchange` without its bulky parts: what an `on_exchange` callback of a recording process gets.

    Kept: every scalar field, the headers, `meta`, `error`, the request body's keys other than
    `input`/`instructions`/`tools` (with `input` as an empty list when it had one), the response's
    keys other than `output`/`instructions`/`tools` (status, usage, error, model)."""
    update: dict[str, Any] = {"sse": [], "ws_frames": [], "request_text": None, "response_text": None}
    update["response_raw"] = None
    body = exchange.request_body
    if isinstance(body, dict):
        light = {k: v for k, v in body.items() if k not in ("input", "instructions", "tools")}
        update["request_body"] = {**light, "input": []} if "input" in body else light
    if isinstance(exchange.response, dict):
        update["response"] = {
            k: v for k, v in exchange.response.items() if k not in ("output", "instructions", "tools")
        }
    if isinstance(exchange.response_body, dict) and isinstance(exchange.response_body.get("model"), str):
        update["response_body"] = {"model": exchange.response_body["model"]}
    else:
        update["response_body"] = None
    return exchange.model_copy(update=update)


class RecordingProcess:
    """Writes a recording in a child process; the `Recorder`'s worker and its writer in one object.

    Use it where a `RecordingWriter` would go: `Recorder(RecordingProcess(path, meta))`. Raises what
    `RecordingWriter(path, meta)` would (OSError, RecordingError) if the child cannot open the file.
    """

    def __init__(self, path: Path | str, meta: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        self.exchanges_written = 0
        self.held = 0
        self.dropped = 0
        self.last_error: str | None = None
        self.recorded = 0
        """How many exchanges the child has written so far (as far as its results have arrived)."""
        self.processed = 0
        """How many jobs the child has handled (written or failed)."""
        self.failures: list[str] = []
        self._submitted = 0
        self._written: Callable[[Exchange], None] | None = None
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self._pending: deque[memoryview] = deque()
        self._armed: asyncio.AbstractEventLoop | None = None
        self._broken = False
        self._closed = False
        self._ids_lock = threading.Lock()
        self._redactor: Redactor | None = None
        from ctxscope.proxy.store.lock import open_locked

        # Opened and locked here, used by the child: a second writer is refused at once, in this
        # process, and the message names this process (the proxy), not its helper.
        self.path.parent.mkdir(parents=True, exist_ok=True)
        recording = open_locked(self.path)
        jobs_read, self._jobs = os.pipe()
        self._results, results_write = os.pipe()
        with contextlib.suppress(OSError):  # Linux only; elsewhere the default size
            import fcntl

            fcntl.fcntl(self._jobs, _F_SETPIPE_SZ, _PIPE_SIZE)
        command = [sys.executable, "-m", "ctxscope.proxy.record_process", str(jobs_read), str(results_write)]
        command.append(str(recording))
        try:
            # A session of its own: the terminal's Ctrl-C and hang-up reach the proxy, which then closes
            # the pipe and lets the child finish the recording (the child must not die first). Where the
            # scheduler groups processes by session (Linux autogroup), the child then has a group of its
            # own, whose weight it lowers at start (`_background`).
            self._child = subprocess.Popen(
                command,
                pass_fds=(jobs_read, results_write, recording),
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except BaseException:
            for fd in (self._jobs, self._results):
                os.close(fd)
            raise
        finally:
            for fd in (jobs_read, results_write, recording):  # the child has its copies
                os.close(fd)
        self._reader = _FrameReader(self._results)
        try:
            self._send_blocking(_frame(("open", str(self.path), meta or {})))
            self._next_id = self._open_reply()
        except BaseException:
            self._abandon()
            raise
        os.set_blocking(self._jobs, False)
        self._thread = threading.Thread(target=self._read_results, name="ctxscope-recording-results", daemon=True)
        self._thread.start()

    def _open_reply(self) -> int:
        ready, _, _ = select.select([self._results], [], [], START_TIMEOUT_S)
        if not ready:
            raise RecordingError(f"the recording process did not start within {START_TIMEOUT_S:.0f} s")
        try:
            reply = self._reader.read()
        except EOFError:
            raise RecordingError(f"the recording process exited with {self._child.wait()}") from None
        if reply[0] == "os_error":
            raise OSError(reply[1], reply[2], reply[3])
        if reply[0] == "error":
            raise RecordingError(reply[1])
        next_id: int = reply[1]
        return next_id

    def _abandon(self) -> None:
        for fd in (self._jobs, self._results):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._closed = True
        try:
            self._child.wait(10)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()

    # -- the writer's side -----------------------------------------------------------------
    def next_id(self) -> int:
        """A fresh exchange id (after the ids of an appended file's exchanges)."""
        with self._ids_lock:
            value = self._next_id
            self._next_id += 1
            return value

    def learn_environment(self, env: dict[str, str]) -> None:
        """`Redactor.learn_environment` in the child: these credentials are redacted wherever they appear."""
        self._send(_frame(("learn_environment", dict(env))))

    @property
    def redactor(self) -> Redactor:
        """The recording's redactor as the child left it: known once `close` has returned (what it
        learnt is needed to redact other accounts of the run, e.g. Codex's trace, the same way)."""
        if self._redactor is None:
            raise RecordingError("the recording process has not handed back its redactor (not closed, or it died)")
        return self._redactor

    def attach(self, written: Callable[[Exchange], None]) -> RecordingProcess:
        """Call `written(glimpse)` for each exchange written (on the reader thread); returns self."""
        self._written = written
        return self

    # -- the worker's side (the `Recorder` calls these) ------------------------------------
    def submit(self, build: Callable[..., Exchange | None], *args: Any) -> None:
        """Send `build(*args)` to the child: `build` is a module-level function, `args` plain data."""
        if self._closed:
            return
        try:
            frame = _frame(("job", build, args))
        except Exception as exc:  # noqa: BLE001 - an exchange that cannot be sent is lost, not the proxy
            with self._cond:
                self.failures.append(f"cannot hand the exchange to the recording process: {exc}")
            return
        with self._cond:
            self._submitted += 1
        self._send(frame)

    def drain(self, timeout: float = 30.0) -> bool:
        """Wait until the child has handled everything submitted (or is gone); False on timeout."""
        self._flush_now()
        return wait_until(self._cond, lambda: self.processed >= self._submitted or self._child_gone(), timeout, 0.5)

    def wait_for(self, count: int, timeout: float = 30.0) -> bool:
        """Wait until at least `count` exchanges have been handled; False on timeout or if the child is gone."""
        wait_until(self._cond, lambda: self.processed >= count or self._child_gone(), timeout, 0.5)
        with self._cond:
            return self.processed >= count

    def stop(self) -> None:
        """The proxy stopped (mitmproxy's `done`): send what waits for the pipe. Whoever opened the
        recording closes it (`close`), after the last flows cut by the stop were submitted."""
        self._flush_now()

    def close(self) -> None:
        """Send what is left, let the child write it and close the recording; wait for it. Idempotent."""
        with self._send_lock:
            if self._closed:
                return
            self._closed = True
            self._write_pending_blocking()
            with contextlib.suppress(OSError):
                os.close(self._jobs)  # end of jobs: the child writes the rest and closes the file
        try:
            self._child.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()
        self._thread.join(10)
        with contextlib.suppress(OSError):
            os.close(self._results)

    # -- sending without blocking the proxy's loop -----------------------------------------
    def _send(self, frame: bytes) -> None:
        """On the proxy's loop: write the frame now without blocking; what the pipe cannot take waits
        for the loop's writer callback. Off the loop: write it now, blocking."""
        with self._send_lock:
            if self._broken or self._closed:
                return
            self._pending.append(memoryview(frame))
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self._write_pending_blocking()
                return
            if self._armed is None:
                self._send_pending(loop)

    def _send_pending(self, loop: asyncio.AbstractEventLoop) -> None:
        """Write what is queued without blocking (the send lock held); arm the writer callback for the rest."""
        while self._pending and not self._broken:
            head = self._pending[0]
            try:
                sent = os.write(self._jobs, head)
            except BlockingIOError:
                sent = 0
            except OSError:
                self._broke()
                return
            if sent < len(head):
                self._pending[0] = head[sent:]
                if self._armed is None:
                    self._armed = loop
                    loop.add_writer(self._jobs, self._pipe_writable)
                return
            self._pending.popleft()
        if self._armed is not None:
            self._armed.remove_writer(self._jobs)
            self._armed = None

    def _pipe_writable(self) -> None:
        with self._send_lock:
            if self._armed is not None:
                self._send_pending(self._armed)

    def _flush_now(self) -> None:
        """Off the loop (drain, close): what waits for the pipe goes out now, blocking."""
        with self._send_lock:
            if not self._closed:
                self._write_pending_blocking()

    def _write_pending_blocking(self) -> None:
        if not self._pending or self._broken:
            self._pending.clear()
            return
        if self._armed is not None:  # a timer or writer callback on the loop finds nothing left to send
            with contextlib.suppress(RuntimeError):  # its loop is gone already
                self._armed.call_soon_threadsafe(self._armed.remove_writer, self._jobs)
            self._armed = None
        os.set_blocking(self._jobs, True)
        try:
            while self._pending:
                head = self._pending.popleft()
                while head:
                    head = head[os.write(self._jobs, head) :]
        except OSError:
            self._broke()
        finally:
            with contextlib.suppress(OSError):
                os.set_blocking(self._jobs, False)

    def _send_blocking(self, frame: bytes) -> None:
        view = memoryview(frame)
        while view:
            view = view[os.write(self._jobs, view) :]

    def _broke(self) -> None:
        """The child is gone: say so once; traffic keeps flowing, nothing more is recorded."""
        self._pending.clear()
        if not self._broken:
            self._broken = True
            code = self._child.poll()
            message = f"the recording process ended unexpectedly (exit code {code}); no longer recording"
            with self._cond:
                self.failures.append(message)
            print(f"ctxscope: {message}", file=sys.stderr, flush=True)

    def _child_gone(self) -> bool:
        return self._broken or not self._thread.is_alive()

    # -- results ---------------------------------------------------------------------------
    def _read_results(self) -> None:
        while True:
            try:
                message = self._reader.read()
            except (EOFError, OSError):
                break
            if message[0] == "redactor":
                self._redactor = message[1]
                continue
            batch, stats = message
            for ok, exchange, failure in batch:
                if exchange is not None and self._written is not None:
                    try:
                        self._written(exchange)
                    except Exception as exc:  # noqa: BLE001 - a callback's trouble never stops the recording
                        failure = f"{type(exc).__name__}: {exc}"
                with self._cond:
                    self.processed += 1
                    self.recorded += int(ok)
                    if failure is not None:
                        self.failures.append(failure)
            with self._cond:
                self.exchanges_written, self.held, self.dropped, self.last_error = stats
                self._cond.notify_all()
        if not self._closed:
            with self._send_lock:
                self._broke()
        with self._cond:
            self._cond.notify_all()


# -- the child -----------------------------------------------------------------------------------
def _background() -> None:
    """Make this process background work: where the machine is busy, the relay gets the CPU first, and
    this process only falls behind (jobs wait in the pipe) and catches up when the traffic pauses.

    `nice` alone does not do it on Linux with autogroup on (the default of most desktops and of the
    2-core machine the benchmarks run on): the scheduler first shares the CPU between sessions, and a
    process's nice value only counts inside its own. This process leads a session of its own, so its
    group's nice (`/proc/self/autogroup`) is the one that ranks it against the proxy."""
    with contextlib.suppress(OSError):
        os.nice(NICE)
    with contextlib.suppress(OSError):  # not Linux, no autogroup, or not the session's leader: nice alone
        if os.getsid(0) == os.getpid():
            Path("/proc/self/autogroup").write_text(f"{NICE}\n", encoding="ascii")


def _child(jobs_fd: int, results_fd: int, recording_fd: int) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the proxy decides when recording ends
    _background()
    from ctxscope.proxy.store.writer import RecordingWriter

    reader = _FrameReader(jobs_fd)

    listening = True

    def send(obj: Any) -> None:
        nonlocal listening
        view = memoryview(_frame(obj))
        try:
            while view and listening:
                view = view[os.write(results_fd, view) :]
        except OSError:  # the proxy's process is gone: write what it sent all the same, say nothing
            listening = False

    try:
        _, path, meta = reader.read()
    except EOFError:
        return 0
    try:
        writer = RecordingWriter(Path(path), meta=meta, locked_fd=recording_fd)
    except OSError as err:
        send(("os_error", err.errno, err.strerror, err.filename))
        return 1
    except RecordingError as err:
        send(("error", str(err)))
        return 1
    send(("ready", writer.next_id()))
    os.set_blocking(jobs_fd, False)  # polled from now on (see POLL_S)
    import ctxscope.proxy.recorder  # noqa: F401 - the builders the jobs name: loaded before the first one

    results: list[tuple[bool, Exchange | None, str | None]] = []
    last: list[Exchange] = []
    worker = WriteWorker(lambda: writer, last.append)
    sent_at = time.monotonic()

    def flush() -> None:
        nonlocal sent_at
        if results:
            send((results, (writer.exchanges_written, writer.held, writer.dropped, writer.last_error)))
            results.clear()
        sent_at = time.monotonic()

    try:
        while True:
            if not reader.pending():
                if results and time.monotonic() - sent_at >= RESULT_INTERVAL_S:
                    flush()
                arrived = reader.fill()
                if arrived is None:
                    break
                if not arrived:
                    time.sleep(POLL_S)
                    continue
                if not reader.pending():
                    continue
            message = reader.read()
            if message[0] == "learn_environment":
                writer.redactor.learn_environment(message[1])
                continue
            _, build, args = message
            failures = len(worker.failures)
            last.clear()
            ok = worker.handle(build, args)
            failure = worker.failures[-1] if len(worker.failures) > failures else None
            results.append((ok, glimpse(last[0]) if last else None, failure))
            if time.monotonic() - sent_at >= RESULT_INTERVAL_S:
                flush()
    finally:
        writer.close()
        flush()
        # last: what the redactor learnt (secrets → placeholders), for the run's check of Codex's trace
        with contextlib.suppress(Exception):
            send(("redactor", writer.redactor))
    return 0


if __name__ == "__main__":
    sys.exit(_child(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))

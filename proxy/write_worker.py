"""The recorder's writer thread: finished flows are turned into exchanges and written off the proxy's
event loop, one at a time, in the order they finished.

Building an exchange (joining the body copies, decoding, parsing, redacting) and writing it take
milliseconds for a late turn's body; done on mitmproxy's loop they would delay every other flow.
A failed write is said once on stderr per cause, the writer holds the exchange and retries it with
the next one, and traffic keeps flowing; any other failure costs that one exchange, never the
recording.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from ctxscope.proxy.errors import RecordingWriteError
from ctxscope.proxy.model import Exchange

__all__ = ["WriteWorker", "wait_until"]

log = logging.getLogger("ctxscope.proxy.recorder")  # the recorder's own logger: one place to silence or raise it

Build = Callable[..., Exchange | None]
Job = tuple[Build, tuple[Any, ...]]


class WriteWorker:
    """One daemon thread writing what `submit`ted builders produce to `writer()`.

    `writer` is asked on each exchange (a mitmdump option may set it after the proxy started);
    `written(exchange)` is called after each successful write.
    """

    def __init__(self, writer: Callable[[], Any], written: Callable[[Exchange], None]) -> None:
        self._writer = writer
        self._written = written
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._cond = threading.Condition()
        self.recorded = 0
        """How many exchanges have been written so far."""
        self.processed = 0
        """How many finished exchanges have been handled (written or failed)."""
        self.failures: list[str] = []
        self._write_trouble: str | None = None  # the write failure last reported on stderr

    def submit(self, build: Build, *args: Any) -> None:
        """Queue `build(*args)`: the exchange it returns is written on the worker thread."""
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._work, name="ctxscope-recorder", daemon=True)
            self._thread.start()
        self._queue.put((build, args))

    def drain(self, timeout: float = 30.0) -> bool:
        """Wait until everything submitted has been handled; False on timeout."""
        return wait_until(self._cond, lambda: not self._queue.unfinished_tasks, timeout)

    def wait_for(self, count: int, timeout: float = 30.0) -> bool:
        """Wait until at least `count` exchanges have been handled; False on timeout."""
        return wait_until(self._cond, lambda: self.processed >= count, timeout)

    def stop(self) -> None:
        """Handle what is queued, then end the thread."""
        self.drain()
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=30)
            self._thread = None

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                self._queue.task_done()
                return
            ok = False
            try:
                ok = self.handle(*job)
            finally:
                with self._cond:
                    self._queue.task_done()
                    self.processed += 1
                    self.recorded += int(ok)
                    self._cond.notify_all()

    def handle(self, build: Build, args: tuple[Any, ...]) -> bool:
        """Build one exchange and write it; False if it could not be recorded (said in `failures`)."""
        ok = False
        try:
            exchange = build(*args)
            writer = self._writer()
            if exchange is not None and writer is not None:
                writer.write(exchange)
                ok = True  # written, even if the callback below fails
                self._writing_again(writer)
                self._written(exchange)
        except RecordingWriteError as exc:
            # The writer holds the exchange and retries it with the next one; the proxy keeps
            # relaying. Said at once on stderr, once per cause, not per exchange.
            self.failures.append(str(exc))
            if self._write_trouble != str(exc):
                self._write_trouble = str(exc)
                _stderr(f"ctxscope: {exc}; holding exchanges in memory and retrying, traffic still flows")
        except Exception as exc:  # noqa: BLE001 - one bad exchange must not stop the recording
            self.failures.append(describe_failure(exc))
            log.error("ctxscope: could not record an exchange: %s", self.failures[-1])
        return ok

    def _writing_again(self, writer: Any) -> None:
        if self._write_trouble is not None:
            self._write_trouble = None
            _stderr(f"ctxscope: writing {getattr(writer, 'path', 'the recording')} again")


def _stderr(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr closed: nothing more to say
        pass


def wait_until(cond: threading.Condition, done: Callable[[], bool], timeout: float, poll: float | None = None) -> bool:
    """Wait on `cond` (notified as work is handled) until `done()`, looking again at least every `poll`
    seconds if given; False on timeout."""
    deadline = time.monotonic() + timeout
    with cond:
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            cond.wait(left if poll is None else min(left, poll))
    return True


def describe_failure(exc: Exception) -> str:
    """One line naming what failed, without the data: pydantic quotes the offending (unredacted) input."""
    if isinstance(exc, ValidationError):
        fields = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return f"ValidationError: {fields}"
    return f"{type(exc).__name__}: {exc}"

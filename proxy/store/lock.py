"""One writer per recording: an exclusive lock held for as long as a `RecordingWriter` has the file open.

Two captures appending to one file at once interleave their lines, lose exchanges and rebuild input
lists from the other conversation. `flock` on the recording itself (no side file to go stale) makes the
second writer fail at once, before it writes anything; the message names the holder's pid, which Linux
lists in /proc/locks (elsewhere the message says "another process").
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

from ..errors import RecordingError
from ..files import PRIVATE_MODE

__all__ = ["open_locked"]


def open_locked(path: Path, busy: Callable[[str], Exception] | None = None) -> int:
    """A file descriptor of `path` opened for appending (created 0600, never truncated), exclusively locked.

    Raises `RecordingError` naming the holder when another writer has it, or `busy(holder)` when
    given (a session file's writer says what to do about a session in use).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_MODE)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(os.fstat(fd).st_ino)
            if busy is not None:
                raise busy(holder) from None
            raise RecordingError(
                f"{path} is being recorded by {holder}; stop it first or choose another output file"
            ) from None
        os.fchmod(fd, PRIVATE_MODE)  # an older 0644 recording becomes owner-only as it grows
        return fd
    except BaseException:
        os.close(fd)
        raise


def _holder(inode: int) -> str:
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            for line in locks:
                fields = line.split()
                # "1: FLOCK  ADVISORY  WRITE 12345 fe:00:5450112 0 EOF"
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5].rsplit(":", 1)[-1] == str(inode):
                    if fields[4] == str(os.getpid()):
                        return f"this process (pid {fields[4]})"
                    return f"another ctxscope (pid {fields[4]})"
    except OSError:
        pass
    return "another process"

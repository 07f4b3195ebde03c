"""Files ctxscope writes: owner-only wherever they go, outputs replaced whole, never written over an input.

Recordings, sessions, replay reports and exports hold conversations (and, before redaction catches
them, things that look like credentials), so they are created 0600 whatever the umask and wherever the
user points them, not only inside a ctxscope-created home. An output is written to a temporary file
beside it and renamed over the target at the end, so a failure half-way leaves the old file intact;
special files (`/dev/stdout`, a FIFO, `/dev/full`) are written directly. An output that is the same file
as one of the command's inputs is refused before anything is opened for writing.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from .errors import ConfigError, RecordingError

__all__ = [
    "PRIVATE_MODE",
    "check_writable",
    "input_stat",
    "open_private_append",
    "refuse_same_file",
    "shown_path",
    "write_private",
]

PRIVATE_MODE = 0o600


def open_private_append(path: Path) -> IO[str]:
    """`path` opened for appending (created if missing, never truncated), owner-only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_MODE)
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, PRIVATE_MODE)  # an existing file written 0644 by an older version
        return os.fdopen(fd, "a", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def shown_path(path: Path | str) -> str:
    """A path as an error message shows it: whole, or its start and length if it runs past 200 characters."""
    text = str(path)
    return text if len(text) <= 200 else f"{text[:100]}…({len(text)} characters)"


def input_stat(path: Path) -> os.stat_result | None:
    """`path`'s stat, None if it does not exist; `RecordingError` (one line) if it cannot be looked at.

    `Path.exists()` raises on a name too long for the file system or a folder without access; an input
    path is looked at through here, so those are a one-line error like a missing file.
    """
    try:
        return path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        raise RecordingError(f"cannot read {shown_path(path)}: {err.strerror or err}") from None


def refuse_same_file(out: Path, inputs: Iterable[Path]) -> None:
    """Raise `ConfigError` if `out` is one of `inputs` (same inode: also through links and `./x`)."""
    try:
        target = out.stat()
    except OSError:
        return  # does not exist yet: it cannot be an input
    for source in inputs:
        try:
            other = source.stat()
        except OSError:
            continue
        if (target.st_dev, target.st_ino) == (other.st_dev, other.st_ino):
            raise ConfigError(f"refusing to write {out}: it is the input {source}; choose another path")


def check_writable(out: Path, what: str) -> None:
    """Raise `ConfigError` now if `out` could not be written later (checked before a long run)."""
    try:
        mode: int | None = out.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as err:  # a name too long for the file system
        raise ConfigError(f"bad {what} {shown_path(out)!r}: {err.strerror or err}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise ConfigError(f"bad {what} {str(out)!r}: it is a folder; give a file path")
    if mode is not None and not stat.S_ISREG(mode):
        return  # /dev/stdout and the like: written directly
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent or Path("."))
    except OSError as err:
        raise ConfigError(
            f"bad {what} {str(out)!r}: cannot write in {str(out.parent)!r} ({err.strerror or err})"
        ) from None
    os.close(fd)
    os.unlink(tmp)


def write_private(out: Path, write: Callable[[IO[str]], Any], inputs: Iterable[Path] = ()) -> None:
    """Write `out` through `write(stream)`: owner-only, via a temporary file renamed at the end.

    Errors (a full disk, a missing directory) raise `ConfigError` with one line naming the path.
    """
    refuse_same_file(out, inputs)
    try:
        special = out.exists() and not out.is_file()
        if special:
            with out.open("w", encoding="utf-8") as stream:
                write(stream)
            return
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent or Path("."))
    except OSError as err:
        raise ConfigError(f"cannot write {out}: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:  # mkstemp files are 0600
            write(stream)
        os.replace(tmp, out)
    except OSError as err:
        raise ConfigError(f"cannot write {out}: {err.strerror or err}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)

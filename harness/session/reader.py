"""Reading a session file, failing closed: every line parses and links to the line before it.

A session file is the agent's memory, and a resume sends what it says. A line that does not parse,
an entry whose parent is not the entry before it (a line cut out, or two writers at once), or an entry
of a known type whose payload has the wrong shape would otherwise resume a different conversation
in silence (the next request without its base prompt, permissions or environment). Each is a
one-line `ConfigError` naming the file and the line, raised before anything is sent.

The one exception is a torn last line (no newline at its end, not parseable): what a writer killed
mid-write leaves. It is skipped, and `SessionFile.torn` says so (the writer that continues the session
cuts it off before it appends, so it never ends up in the middle of the file).

A session file is a regular file (`regular_file`): a FIFO would block the agent's read until some
writer came, and a device such as `/dev/zero` would never end; either, or a symlink to one, is a
one-line error before anything is read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ctxscope.proxy.errors import ConfigError

__all__ = ["SessionEntry", "SessionFile", "damaged", "read_session", "regular_file"]

_FIX = "restore the file or start a new session (nothing was sent)"


class SessionEntry(BaseModel):
    """One line of a session file."""

    model_config = ConfigDict(extra="allow")

    id: str
    parent_id: str | None = None
    timestamp: str
    type: str
    payload: dict[str, Any]


@dataclass
class SessionFile:
    """A session file's complete entries, where each one is, and what a killed writer left."""

    path: Path
    entries: list[SessionEntry] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)
    """Entry id → its 1-based line number (for errors that name the line)."""
    torn: int = 0
    """The 1-based number of a torn last line that was skipped (0: none)."""
    size: int = 0
    """Bytes of the file that hold complete lines (a torn tail starts here)."""
    unterminated: bool = False
    """The last line parses but has no newline yet: the next append starts a fresh line."""

    def where(self, entry: SessionEntry) -> str:
        """`<file> line <n>`: the place an error about `entry` names."""
        return f"{self.path} line {self.lines.get(entry.id, '?')}"


def damaged(where: str, what: str) -> ConfigError:
    """The one-line error for a damaged session file."""
    return ConfigError(f"session file {where}: {what}; {_FIX}")


_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def _not_regular(path: Path, mode: int) -> ConfigError:
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    via = " (through a symlink)" if path.is_symlink() else ""
    return ConfigError(
        f"session file {path} is {kind}{via}, not a regular file: give a session id or a session .jsonl file"
    )


def regular_file(path: Path) -> None:
    """A `ConfigError` unless `path` (a symlink followed) is missing or a regular file; never blocks."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # missing: the caller's own error (or the writer creates it)
    if not stat.S_ISREG(mode):
        raise _not_regular(path, mode)


def _read_regular(path: Path) -> bytes:
    """`path`'s bytes, refused unless it is a regular file: opened without blocking (a FIFO with no
    writer would wait), checked on the open file (no swap between a check and the read)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode)
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def read_session(path: Path) -> SessionFile:
    """Parse and check `path` (see the module docstring); `ConfigError` when it is damaged."""
    try:
        data = _read_regular(path)
    except OSError as e:
        raise ConfigError(f"cannot read session file {path} ({e.strerror or e.__class__.__name__})") from e
    found = SessionFile(path=path)
    raw_lines = data.split(b"\n")
    tail = raw_lines.pop()  # b"" when the file ends with a newline
    for n, raw in enumerate([*raw_lines, tail], 1):
        last = n == len(raw_lines) + 1
        if last and not raw:
            break
        if not raw or raw.isspace():
            continue
        try:
            entry = SessionEntry.model_validate_json(raw)  # bytes: invalid UTF-8 is a ValidationError
        except ValidationError as e:
            if last and found.entries:
                # A writer killed mid-line: the complete lines before it are all good.
                found.torn = n
                break
            if not found.entries:
                raise ConfigError(f"{path} is not a ctxscope session file (line {n}: {_reason(e)})") from None
            raise damaged(f"{path} line {n}", f"the line is not a session entry ({_reason(e)})") from None
        _check_link(found, entry, n)
        found.entries.append(entry)
        found.lines[entry.id] = n
        found.unterminated = last
    found.size = len(data) - (len(tail) if found.torn else 0)
    if found.entries and found.entries[0].type != "session_meta":
        raise ConfigError(f"{path} is not a ctxscope session file (no session_meta line)")
    return found


def _check_link(found: SessionFile, entry: SessionEntry, n: int) -> None:
    """Each entry's parent is the entry on the line before it (the file is one linear branch)."""
    before = found.entries[-1] if found.entries else None
    if before is not None and entry.parent_id == before.id and entry.id not in found.lines:
        return  # the usual case, checked without building a message
    where = f"{found.path} line {n}"
    if entry.id in found.lines:
        raise damaged(where, f"entry id {entry.id} repeats line {found.lines[entry.id]}")
    if before is None:
        if entry.parent_id is not None:
            raise damaged(
                where, f"the first entry has a parent ({entry.parent_id}): lines before it are missing"
            )
        return
    known = entry.parent_id in found.lines
    cause = (
        "two processes wrote the file at once"
        if known
        else "an entry between them is missing (a line was cut out)"
    )
    raise damaged(
        where,
        f"the parent chain is broken: this entry's parent is {entry.parent_id}, "
        f"not {before.id} on line {found.lines[before.id]} ({cause})",
    )


def _reason(err: ValidationError) -> str:
    first = err.errors()[0]
    at = ".".join(str(p) for p in first["loc"])
    return f"{at}: {first['msg']}" if at else first["msg"]

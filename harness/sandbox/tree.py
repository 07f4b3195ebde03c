"""The processes beneath one process, read from /proc, and killing all of them.

The wrapper is a child subreaper (`PR_SET_CHILD_SUBREAPER`): a process it started that is orphaned
(`setsid`, a double fork, `nohup … &`) is re-parented to it, never to init. So the tree under the
wrapper holds every process the command started, however it detached, and killing that tree round
after round (a dying process may have forked once more) leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

__all__ = ["descendants", "kill_tree", "reap"]

_PROC = "/proc"


def _stat(pid: str) -> tuple[int, str, str] | None:
    """(ppid, state, name) of `pid`, or None when it is gone."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as f:
            raw = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split at the last ')'.
    head, _, rest = raw.rpartition(")")
    fields = rest.split()
    if len(fields) < 2:
        return None
    return int(fields[1]), fields[0], head.partition("(")[2]


def descendants(root: int) -> dict[int, str]:
    """Live (not zombie) processes beneath `root`, pid → name."""
    children: dict[int, list[int]] = {}
    info: dict[int, tuple[str, str]] = {}
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return {}
    for entry in entries:
        if not entry.isdigit():
            continue
        stat = _stat(entry)
        if stat is None:
            continue
        ppid, state, name = stat
        children.setdefault(ppid, []).append(int(entry))
        info[int(entry)] = (state, name)
    found: dict[int, str] = {}
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        state, name = info[pid]
        if state != "Z":
            found[pid] = name
        todo += children.get(pid, [])
    return found


def reap() -> dict[int, int]:
    """Collect every exited child without blocking: pid → wait status."""
    done: dict[int, int] = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return done
        if pid == 0:
            return done
        done[pid] = status


def kill_tree(root: int, rounds: int = 50) -> dict[int, str]:
    """SIGKILL every process beneath `root` (the caller, a subreaper) until none is left; the
    processes killed, pid → name."""
    killed: dict[int, str] = {}
    for _ in range(rounds):
        live = descendants(root)
        if not live:
            break
        for pid, name in live.items():
            killed.setdefault(pid, name)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        reap()
        time.sleep(0.005)  # let the kernel finish the kills before the next look
    reap()
    return killed

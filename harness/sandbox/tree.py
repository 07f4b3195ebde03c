"""The processes beneath one process, read from /proc, and killing all of them.

The wrapper is a child subreaper (`PR_SET_CHILD_SUBREAPER`): a process it started that is orphaned
(`setsid`, a double fork, `nohup … &`) is re-parented to it, never to init. So the tree under the
wrapper holds every process the command started, however it detached, and killing that tree round
after round (a dying process may have forked once more) leaves nothing behind.
"""

from __future__ import annotations

import os
import time

_SIGKILL = 9  # the signal module (and its enums) is not worth importing for one number

__all__ = ["descendants", "has_children", "kill_tree", "reap"]

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


def _children(pid: int) -> list[int] | None:
    """Direct children of `pid` from the kernel's per-thread lists; None where /proc lacks them."""
    try:
        tasks = os.listdir(f"{_PROC}/{pid}/task")
    except OSError:
        return []  # gone
    found: list[int] = []
    for tid in tasks:
        try:
            with open(f"{_PROC}/{pid}/task/{tid}/children", "rb") as f:
                found += [int(c) for c in f.read().split()]
        except FileNotFoundError:
            if not os.path.exists(f"{_PROC}/{pid}/task/{tid}"):
                continue  # the thread ended meanwhile
            return None  # a kernel without CONFIG_PROC_CHILDREN
        except OSError:
            continue
    return found


def _scan_children() -> dict[int, list[int]]:
    """ppid → children, from every /proc/<pid>/stat (the slow way, for kernels without lists)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return children
    for entry in entries:
        if entry.isdigit() and (stat := _stat(entry)) is not None:
            children.setdefault(stat[0], []).append(int(entry))
    return children


def descendants(root: int) -> dict[int, str]:
    """Live (not zombie) processes beneath `root`, pid → name."""
    scanned: dict[int, list[int]] | None = None
    found: dict[int, str] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        kids = _children(pid) if scanned is None else scanned.get(pid, [])
        if kids is None:
            scanned = _scan_children()
            kids = scanned.get(pid, [])
        for kid in kids:
            stat = _stat(str(kid))
            if stat is None:
                continue
            if stat[1] != "Z":
                found[kid] = stat[2]
            todo.append(kid)
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


def has_children() -> bool:
    """Whether the caller still has a live child, reaping the exited ones. For a subreaper that is
    whether anything is left beneath it at all (an orphan is re-parented to it), and it costs no
    /proc scan."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def kill_tree(root: int, rounds: int = 50) -> dict[int, str]:
    """SIGKILL every process beneath `root` (the caller, a subreaper) until none is left; the
    processes killed, pid → name."""
    killed: dict[int, str] = {}
    for _ in range(rounds):
        if not has_children():
            break
        live = descendants(root)
        if not live:
            break
        for pid, name in live.items():
            killed.setdefault(pid, name)
            try:
                os.kill(pid, _SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        reap()
        time.sleep(0.005)  # let the kernel finish the kills before the next look
    reap()
    return killed

"""Namespaces for one confined command: no network, and `.git` read-only inside the writable roots.

An unprivileged process may create a user namespace and, owning it, a network namespace and a
mount namespace (`unshare(2)`):

- a new network namespace has only a loopback interface, and it is down: nothing is reachable, not
  even a server on the host's 127.0.0.1 (loopback is per namespace);
- a new mount namespace lets each `.git` beneath a writable root (`support.git_paths`: the top one,
  nested repositories', where a `.git` file points) be bind-mounted onto itself read-only, so git's
  hooks and config cannot be rewritten even though the root around them is writable (Landlock
  grants rights to whole trees and cannot carve a subtree out).

The user is mapped to itself (the uid and gid stay the caller's, files keep their owners); the
command `exec`s with no capabilities left in the namespace, so it cannot undo the mounts, and
Landlock, applied after, forbids any mount change too.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["NamespaceError", "enter"]

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_NOATIME, _MS_NODIRATIME, _MS_REMOUNT, _MS_BIND = 1024, 2048, 32, 4096
_MS_REC, _MS_PRIVATE, _MS_RELATIME = 16384, 1 << 18, 1 << 21
# statvfs flag -> mount flag: a remount inside a user namespace must keep the locked flags.
_KEPT_FLAGS = {
    os.ST_NOSUID: _MS_NOSUID,
    os.ST_NODEV: _MS_NODEV,
    os.ST_NOEXEC: _MS_NOEXEC,
    os.ST_NOATIME: _MS_NOATIME,
    os.ST_NODIRATIME: _MS_NODIRATIME,
    os.ST_RELATIME: _MS_RELATIME,
}

_libc = ctypes.CDLL(None, use_errno=True)


class NamespaceError(OSError):
    """A namespace could not be created or set up."""


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise NamespaceError(err, f"{what}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _mount(source: str | None, target: str, flags: int, what: str) -> None:
    src = source.encode() if source is not None else None
    _check(_libc.mount(src, target.encode(), None, ctypes.c_ulong(flags), None), what)


def _read_only_bind(path: str) -> None:
    _mount(path, path, _MS_BIND | _MS_REC, f"bind-mount {path}")
    kept = os.statvfs(path).f_flag
    flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY
    flags |= sum(mount for st, mount in _KEPT_FLAGS.items() if kept & st)
    _mount(None, path, flags, f"remount {path} read-only")


def enter(*, network: bool, read_only: tuple[str, ...] | list[str] = ()) -> None:
    """Move this (single-threaded) process into new namespaces: a user namespace mapping the caller
    to itself, a network namespace unless `network`, and a mount namespace in which every existing
    path of `read_only` is a read-only bind mount. Raises `NamespaceError`."""
    uid, gid = os.getuid(), os.getgid()
    protect = [p for p in read_only if os.path.lexists(p)]
    flags = CLONE_NEWUSER | (0 if network else CLONE_NEWNET) | (CLONE_NEWNS if protect else 0)
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/gid_map", f"{gid} {gid} 1\n")
        _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    except OSError as e:
        raise NamespaceError(e.errno or 0, f"mapping the user into its namespace: {e}") from e
    if protect:
        # Private: the read-only mounts must not propagate back to the host's mount table.
        _mount(None, "/", _MS_REC | _MS_PRIVATE, "make mounts private")
        for path in protect:
            _read_only_bind(os.path.realpath(path))

"""Landlock, the Linux security module an unprivileged process uses to confine itself, by raw syscalls.

A ruleset names the access rights it handles; everything handled and not granted by a rule is
denied to the calling thread and everything it starts, for good (the domain is inherited across
fork and exec and cannot be left). The confinement here:

- the whole tree is readable and executable (and device ioctls work, so terminals do);
- write rights (write, truncate, create, remove, rename, link) only beneath the writable roots,
  plus the few character devices every shell writes to (`/dev/null`, the terminal);
- with the network off, TCP bind and connect are handled and never granted (ABI 4), a second layer
  under the network namespace;
- signals and abstract Unix sockets are scoped to the domain (ABI 6), so a confined command cannot
  kill the supervisor that tracks it.

The syscalls are called through ctypes (the one Python binding on the registries is a development
release); numbers 444-446 are the same on every architecture. Rights unknown to the running kernel's
ABI are masked off, so an older kernel confines what it can, and `abi_version()` says which.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["LandlockError", "abi_version", "restrict_self"]

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights, by the ABI that introduced them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

READ = EXECUTE | READ_FILE | READ_DIR | IOCTL_DEV
WRITE = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_CHAR
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_BLOCK
    | MAKE_SYM
    | REFER
    | TRUNCATE
)
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
"""The rights a rule on a non-directory may carry (the kernel refuses directory rights on a file)."""
DEVICES_WRITABLE = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts", "/dev/ptmx")
"""Character devices commands write to as a matter of course; none of them is storage."""


class LandlockError(OSError):
    """Landlock is missing or refused the ruleset."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: a u64 then an s32
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args: object) -> int:
    result = int(_libc.syscall(ctypes.c_long(number), *args))
    if result < 0:
        err = ctypes.get_errno()
        raise LandlockError(err, os.strerror(err))
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is not built in or not enabled."""
    if sys.platform != "linux":
        return 0  # the syscall numbers mean something else elsewhere
    try:
        return _syscall(
            _SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
        )
    except LandlockError:
        return 0


def _fs_rights(abi: int) -> int:
    return _FS_BY_ABI[max(k for k in _FS_BY_ABI if k <= abi)]


def _add_path(ruleset: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a root that does not exist (yet) grants nothing
    try:
        if not os.path.isdir(path):
            access &= _FILE_ONLY
        attr = _PathBeneathAttr(access, fd)
        _syscall(
            _SYS_ADD_RULE,
            ctypes.c_int(ruleset),
            ctypes.c_int(_RULE_PATH_BENEATH),
            ctypes.byref(attr),
            ctypes.c_uint32(0),
        )
    finally:
        os.close(fd)


def restrict_self(writable: tuple[str, ...] | list[str], *, network: bool) -> int:
    """Confine this process and its future children: read anywhere, write only beneath `writable`
    (and the usual devices), no TCP unless `network`, signals scoped. Returns the ABI used.

    Raises `LandlockError` when the kernel has no Landlock; the caller must not run the command then.
    """
    abi = abi_version()
    if abi < 1:
        raise LandlockError(0, "Landlock is not available in this kernel")
    fs = _fs_rights(abi)
    net = 0 if network or abi < 4 else NET_BIND_TCP | NET_CONNECT_TCP
    scoped = 0
    if abi >= 6:
        # Abstract Unix sockets are network-like; with the network on, X11 and friends keep working.
        scoped = SCOPE_SIGNAL | (0 if network else SCOPE_ABSTRACT_UNIX)
    attr = _RulesetAttr(fs, net, scoped)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = _syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        _add_path(ruleset, "/", READ & fs)
        for path in (*DEVICES_WRITABLE, *writable):
            _add_path(ruleset, path, (READ | WRITE) & fs)
        # Landlock needs no_new_privs (or CAP_SYS_ADMIN): a setuid program could otherwise run
        # with the confinement of its caller.
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            err = ctypes.get_errno()
            raise LandlockError(err, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(err)}")
        _syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    return abi

"""A seccomp filter: the syscalls a confined command has no need for fail with EPERM.

The kernel interfaces no build, test or editor needs and that are the usual way from an unprivileged
process into kernel bugs: io_uring (`io_uring_setup`, `_enter`, `_register`: it also runs file and
network operations outside the syscalls the other layers see), the kernel keyrings (`add_key`,
`request_key`, `keyctl`), `bpf`, `perf_event_open`, `userfaultfd`, `kexec_load`/`kexec_file_load`
and the module calls (`init_module`, `finit_module`, `delete_module`).

The filter is a classic BPF program built here with the standard library (`struct`-packed
`sock_filter`s, installed through `prctl(PR_SET_NO_NEW_PRIVS)` and `seccomp(SECCOMP_SET_MODE_FILTER)`
by ctypes): it checks the architecture first, since syscall numbers are per architecture (a process
may call the 32-bit or x32 table on x86_64, where the numbers mean other calls: those are refused
whole, the process is killed rather than left spinning on EPERM), then answers EPERM for each number
listed and allows the rest. x86_64 and aarch64 are known; elsewhere `supported()` is False and no
filter is installed (the sandbox says so).
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct

__all__ = ["BLOCKED", "SeccompError", "filter_program", "install", "supported"]

BLOCKED = (
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "add_key",
    "request_key",
    "keyctl",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
)
"""The syscalls refused, by name."""

# Per architecture: its AUDIT_ARCH value, the seccomp syscall's number, and the numbers of BLOCKED
# (x86_64: arch/x86/entry/syscalls/syscall_64.tbl; aarch64: the generic table, include/uapi/asm-generic/unistd.h).
_ARCHES: dict[str, tuple[int, int, dict[str, int]]] = {
    "x86_64": (
        0xC000003E,
        317,
        {
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "bpf": 321,
            "perf_event_open": 298,
            "userfaultfd": 323,
            "kexec_load": 246,
            "kexec_file_load": 320,
            "init_module": 175,
            "finit_module": 313,
            "delete_module": 176,
        },
    ),
    "aarch64": (
        0xC00000B7,
        277,
        {
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "bpf": 280,
            "perf_event_open": 241,
            "userfaultfd": 282,
            "kexec_load": 104,
            "kexec_file_load": 294,
            "init_module": 105,
            "finit_module": 273,
            "delete_module": 106,
        },
    ),
}
_ALIASES = {"amd64": "x86_64", "arm64": "aarch64"}
_X32_BIT = 0x40000000
"""x86_64 numbers at or above this are the x32 ABI's (another table)."""

# Classic BPF opcodes and seccomp's return values (linux/filter.h, linux/seccomp.h).
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_RET_KILL_PROCESS = 0x80000000
_NR_OFFSET, _ARCH_OFFSET = 0, 4  # struct seccomp_data: int nr; __u32 arch; ...
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_SET_MODE_FILTER = 1


class SeccompError(OSError):
    """The filter could not be installed."""


def _machine() -> str:
    machine = os.uname().machine.lower()  # not `platform`: its import is paid by every command
    return _ALIASES.get(machine, machine)


def supported() -> bool:
    """Whether this machine's architecture has a filter here (Linux on x86_64 or aarch64)."""
    return os.uname().sysname == "Linux" and _machine() in _ARCHES


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def filter_program(machine: str | None = None) -> bytes:
    """The filter for `machine` (default: this one) as packed `sock_filter`s."""
    arch, _, numbers = _ARCHES[machine or _machine()]
    blocked = sorted({numbers[name] for name in BLOCKED})
    program = [
        _insn(_LD_W_ABS, 0, 0, _ARCH_OFFSET),
        _insn(_JEQ_K, 1, 0, arch),  # this architecture: go on; any other table: kill
        _insn(_RET_K, 0, 0, _RET_KILL_PROCESS),
        _insn(_LD_W_ABS, 0, 0, _NR_OFFSET),
    ]
    if arch == _ARCHES["x86_64"][0]:
        program += [_insn(_JGE_K, 0, 1, _X32_BIT), _insn(_RET_K, 0, 0, _RET_KILL_PROCESS)]
    # One compare per number, each jumping to the EPERM return after the last compare.
    for i, number in enumerate(blocked):
        program.append(_insn(_JEQ_K, len(blocked) - i, 0, number))
    program += [_insn(_RET_K, 0, 0, _RET_ALLOW), _insn(_RET_K, 0, 0, _RET_ERRNO | errno.EPERM)]
    return b"".join(program)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> None:
    """Filter this (single-threaded) process and everything it starts, for good. Raises `SeccompError`."""
    if not supported():
        raise SeccompError(errno.ENOSYS, f"no seccomp filter for {os.uname().machine}")
    _, seccomp_nr, _ = _ARCHES[_machine()]
    program = filter_program()
    buffer = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # Without CAP_SYS_ADMIN a filter needs no_new_privs (Landlock has set it already, where it runs).
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise SeccompError(err, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(err)}")
    result = libc.syscall(
        ctypes.c_long(seccomp_nr), ctypes.c_uint(_SECCOMP_SET_MODE_FILTER), ctypes.c_uint(0), ctypes.byref(prog)
    )
    if result != 0:
        err = ctypes.get_errno()
        raise SeccompError(err, f"seccomp(SECCOMP_SET_MODE_FILTER): {os.strerror(err)}")

"""What this machine's kernel lets the agent enforce, how a command is wrapped, and the words for it.

`capabilities()` probes once per process, for real: Landlock's ABI by its syscall, and namespaces
and seccomp by running the wrapper's `--probe` (a child enters a user, network and mount namespace
and checks that a read-only bind holds; another installs the syscall filter and checks that
`io_uring_setup` fails with EPERM). `enforcement(mode, network, caps)` is the one sentence the person
(`/status`, the start notice) and the model (the permissions fragment) are told; it names what is
enforced and how, and says plainly what is not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from ctxscope.harness.sandbox.landlock import abi_version
from ctxscope.harness.sandbox.launcher import wrapper_argv, wrapper_fds
from ctxscope.harness.sandbox.policy import SandboxPolicy

__all__ = [
    "Capabilities",
    "capabilities",
    "enforcement",
    "policy_for",
    "unenforced",
    "wrap_command",
]

PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Capabilities:
    """What the kernel offers an unprivileged process."""

    landlock_abi: int = 0
    """0: no Landlock (nothing on the filesystem is enforced)."""
    namespaces: bool = False
    """Unprivileged user + network + mount namespaces work."""
    seccomp: bool = False
    """The syscall filter installs and holds (`ctxscope.harness.sandbox.seccomp`)."""

    @property
    def landlock(self) -> bool:
        return self.landlock_abi >= 1

    def summary(self) -> str:
        """One line for `/status`: what the kernel has."""
        fs = f"Landlock ABI {self.landlock_abi}" if self.landlock else "no Landlock"
        ns = "user/network/mount namespaces" if self.namespaces else "no unprivileged user namespaces"
        sc = "seccomp filter" if self.seccomp else "no seccomp filter"
        return f"{fs}, {ns}, {sc}"


_lock = threading.Lock()
_cached: Capabilities | None = None


def _probe() -> Capabilities:
    abi = abi_version()
    try:
        done = subprocess.run(
            wrapper_argv(["--probe"]),
            pass_fds=wrapper_fds(),
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        found = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
        return Capabilities(
            landlock_abi=int(found["landlock_abi"]),
            namespaces=found["namespaces"] == "1",
            seccomp=found.get("seccomp") == "1",
        )
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return Capabilities(landlock_abi=abi, namespaces=False)


def capabilities() -> Capabilities:
    """This kernel's capabilities, probed on first use (a child process, some tens of ms)."""
    global _cached
    with _lock:
        if _cached is None:
            _cached = _probe() if sys.platform == "linux" else Capabilities()
        return _cached


def wrap_command(
    argv: list[str], policy: SandboxPolicy, report_fd: int, *, grace: float
) -> tuple[list[str], tuple[int, ...]]:
    """`argv` run under the wrapper with `policy`, its report going to `report_fd`: the command
    line and the fds it must inherit (`Popen(pass_fds=...)`, `report_fd` included)."""
    options = [*policy.to_args(), "--report-fd", str(report_fd), "--parent", str(os.getpid())]
    return wrapper_argv([*options, "--grace", str(grace), "--", *argv]), (*wrapper_fds(), report_fd)


def policy_for(mode: str, roots: Iterable[str], *, network: bool, caps: Capabilities) -> SandboxPolicy:
    """The policy of sandbox `mode` with writable `roots` (workspace-write only), as far as `caps`
    allow: what the kernel lacks is left out (and `enforcement` says so)."""
    if mode == "danger-full-access":
        return SandboxPolicy(confine=False, network=True, landlock=False, namespaces=False)
    writable: tuple[str, ...] = ()
    git: tuple[str, ...] = ()
    if mode != "read-only":
        writable = tuple(dict.fromkeys(os.path.realpath(r) for r in roots))
        git = tuple(os.path.join(r, ".git") for r in writable if os.path.lexists(os.path.join(r, ".git")))
    return SandboxPolicy(
        confine=caps.landlock or caps.namespaces,
        writable=writable,
        network=network,
        protect_git=git if caps.namespaces else (),
        landlock=caps.landlock,
        namespaces=caps.namespaces and (not network or bool(git)),
        seccomp=caps.seccomp,
    )


def _held_and_missing(mode: str, network: bool, caps: Capabilities) -> tuple[list[str], list[str]]:
    held: list[str] = []
    missing: list[str] = []
    if caps.landlock:
        held.append(
            "writes fail everywhere (Landlock)"
            if mode == "read-only"
            else "writes outside the writable roots fail (Landlock)"
        )
    else:
        missing.append("file writes (this kernel has no Landlock)")
    if mode == "workspace-write":
        if caps.namespaces:
            held.append("`.git` is read-only (a read-only bind mount)")
        else:
            missing.append("read-only `.git` (no user namespaces)")
    if caps.seccomp:
        held.append(
            "io_uring, kernel keyrings, bpf, perf events, userfaultfd, kexec and module loading fail "
            "with EPERM (a seccomp filter)"
        )
    if not network:
        if caps.namespaces:
            held.append("there is no network, loopback included (a network namespace)")
        elif caps.landlock_abi >= 4:
            held.append("TCP connections fail (Landlock)")
            missing.append("UDP and other non-TCP network (no user namespaces)")
        else:
            missing.append("network access (no user namespaces)")
    return held, missing


def unenforced(mode: str, network: bool, caps: Capabilities) -> list[str]:
    """The rules of `mode` the OS cannot enforce here (for the start notice); [] when all hold."""
    return [] if mode == "danger-full-access" else _held_and_missing(mode, network, caps)[1]


def enforcement(mode: str, network: bool, caps: Capabilities) -> str:
    """How the rules of `mode` are enforced on this machine, in one sentence."""
    if mode == "danger-full-access":
        return "No sandbox: commands run unconfined."
    held, missing = _held_and_missing(mode, network, caps)
    text = ""
    if held:
        text = "The operating system enforces this: " + "; ".join(held) + "."
    if missing:
        text += (" " if text else "") + "Not enforced here: " + ", ".join(missing)
        text += "; keep to these rules yourself."
    return text

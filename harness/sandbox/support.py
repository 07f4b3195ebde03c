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
import time
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
        if caps.namespaces:
            git = tuple(dict.fromkeys(p for r in writable for p in git_paths(r, writable)))
    return SandboxPolicy(
        confine=caps.landlock or caps.namespaces,
        writable=writable,
        network=network,
        protect_git=git if caps.namespaces else (),
        landlock=caps.landlock,
        namespaces=caps.namespaces and (not network or bool(git)),
        seccomp=caps.seccomp,
    )


GIT_SCAN_REFRESH_S = 30.0
"""How old a root's list of `.git` paths may get before it is scanned again (in the background)."""


def _gitdir_target(dot_git: str) -> str | None:
    """Where a `.git` file (a submodule's, a worktree's) points: its `gitdir:` line, resolved."""
    try:
        with open(dot_git, "rb") as f:
            first = f.read(4096).split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:") :].strip()
    return os.path.realpath(os.path.join(os.path.dirname(dot_git), target))


def _scan_git(root: str) -> tuple[str, ...]:
    """Every `.git` (directory or file) beneath `root`, nested repositories' too; symlinked
    directories are not followed and a `.git` directory is not entered."""
    found: list[str] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.name == ".git":
                        found.append(entry.path)
                    elif entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                except OSError:
                    continue
    return tuple(sorted(found))


class _GitScans:
    """Each root's `.git` paths: scanned on first use, then again in the background once
    `GIT_SCAN_REFRESH_S` old (a command meanwhile gets the last list, and the top `.git` fresh)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._found: dict[str, tuple[float, tuple[str, ...]]] = {}
        self._running: set[str] = set()

    def get(self, root: str) -> tuple[str, ...]:
        with self._lock:
            cached = self._found.get(root)
            stale = cached is not None and time.monotonic() - cached[0] > GIT_SCAN_REFRESH_S
            if stale and root not in self._running:
                self._running.add(root)
                threading.Thread(target=self._refresh, args=(root,), daemon=True).start()
        if cached is None:
            found = _scan_git(root)
            with self._lock:
                self._found[root] = (time.monotonic(), found)
            return found
        return cached[1]

    def _refresh(self, root: str) -> None:
        try:
            found = _scan_git(root)
            with self._lock:
                self._found[root] = (time.monotonic(), found)
        finally:
            with self._lock:
                self._running.discard(root)


_scans = _GitScans()


def git_paths(root: str, writable: Iterable[str] = ()) -> list[str]:
    """The `.git` paths to keep read-only beneath `root`: its own `.git`, every nested one, and where a
    `.git` file points when that lies beneath a writable root too."""
    roots = [root, *writable]
    paths = [p for p in (os.path.join(root, ".git"),) if os.path.lexists(p)]
    paths += [p for p in _scans.get(root) if p not in paths]
    out: list[str] = []
    for path in paths:
        out.append(path)
        if os.path.isfile(path) and (target := _gitdir_target(path)) is not None:
            if any(target == r or target.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
                out.append(target)
    return out


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
            held.append("every `.git` beneath the writable roots is read-only, nested ones too (read-only bind mounts)")
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

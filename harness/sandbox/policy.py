"""What one command may do: the policy the agent hands the confining wrapper (`ctxscope.harness.sandbox.exec`).

The policy is plain data; it crosses to the wrapper as options on its command line (`to_args`):

    confine=False            danger-full-access, or an approved command: only process tracking
    writable=()              read-only: no writes anywhere (the usual devices excepted)
    writable=(cwd, /tmp, …)  workspace-write: writes only beneath these; every `.git` beneath them
                             (nested repositories' too) stays read-only (`protect_git`)
    network=False            no network at all, loopback included
    seccomp=True             the syscalls no command needs fail with EPERM (`seccomp`)

A plain class, not a dataclass or NamedTuple, and no JSON: the wrapper imports this module, and
each millisecond of its start is paid by every command (dataclasses, typing and json together cost
it more than the rest of its imports).
"""

from __future__ import annotations

import os

__all__ = ["SandboxPolicy", "default_writable_roots"]

_FLAGS = ("confine", "network", "landlock", "namespaces", "seccomp")


class SandboxPolicy:
    """The confinement of one command (immutable by convention; compare with `==`)."""

    __slots__ = ("confine", "writable", "network", "protect_git", "landlock", "namespaces", "seccomp")

    def __init__(
        self,
        *,
        confine: bool = True,
        writable: tuple[str, ...] = (),
        network: bool = False,
        protect_git: tuple[str, ...] = (),
        landlock: bool = True,
        namespaces: bool = True,
        seccomp: bool = False,
    ) -> None:
        self.confine = confine
        """False: run unconfined (the wrapper still tracks every process the command starts)."""
        self.writable = tuple(writable)
        """Absolute paths beneath which writing is allowed; empty: read-only."""
        self.network = network
        """Whether the command may use the network."""
        self.protect_git = tuple(protect_git)
        """`.git` paths kept read-only although they are beneath a writable root."""
        self.landlock = landlock
        """Confine the filesystem with Landlock (False where the kernel has none)."""
        self.namespaces = namespaces
        """Use user, network and mount namespaces (False where the kernel refuses them)."""
        self.seccomp = seccomp
        """Filter the syscalls a command has no need for (`seccomp`: io_uring, keyrings, bpf, ...)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SandboxPolicy) and self.to_args() == other.to_args()

    def __hash__(self) -> int:
        return hash(tuple(self.to_args()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"SandboxPolicy({fields})"

    def to_args(self) -> list[str]:
        """The wrapper's options for this policy (`from_args` reads them back)."""
        args = [f"--{name}" for name in _FLAGS if getattr(self, name)]
        for path in self.writable:
            args += ["--writable", path]
        for path in self.protect_git:
            args += ["--protect-git", path]
        return args

    @classmethod
    def from_args(cls, flags: set[str], writable: list[str], protect_git: list[str]) -> SandboxPolicy:
        """The policy of the parsed options: the flags given and the repeated path options."""
        return cls(
            confine="confine" in flags,
            writable=tuple(writable),
            network="network" in flags,
            protect_git=tuple(protect_git),
            landlock="landlock" in flags,
            namespaces="namespaces" in flags,
            seccomp="seccomp" in flags,
        )


def default_writable_roots(cwd: str) -> list[str]:
    """Codex's workspace-write roots: the working directory and the temp directories."""
    roots = [cwd, "/tmp"]
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and os.path.realpath(tmpdir) not in roots:
        roots.append(os.path.realpath(tmpdir))
    return roots

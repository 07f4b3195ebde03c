"""What one command may do: the policy the agent hands the confining wrapper (`harness.sandbox.exec`).

The policy is plain data (it crosses a process boundary as JSON on the wrapper's command line):

    confine=False            danger-full-access, or an approved escalation: only process tracking
    writable=()              read-only: no writes anywhere (the usual devices excepted)
    writable=(cwd, /tmp, …)  workspace-write: writes only beneath these; `.git` at the top of each
                             stays read-only
    network=False            no network at all, loopback included
"""

from __future__ import annotations

import json
import os
from typing import NamedTuple

__all__ = ["SandboxPolicy", "default_writable_roots"]


class SandboxPolicy(NamedTuple):
    """The confinement of one command (a NamedTuple, not a dataclass: the wrapper imports this,
    and every millisecond of its start is paid by every command)."""

    confine: bool = True
    """False: run unconfined (the wrapper still tracks every process the command starts)."""
    writable: tuple[str, ...] = ()
    """Absolute paths beneath which writing is allowed; empty: read-only."""
    network: bool = False
    """Whether the command may use the network."""
    protect_git: tuple[str, ...] = ()
    """`.git` paths kept read-only although they are beneath a writable root."""
    landlock: bool = True
    """Confine the filesystem with Landlock (False where the kernel has none)."""
    namespaces: bool = True
    """Use user, network and mount namespaces (False where the kernel refuses them)."""

    def to_json(self) -> str:
        return json.dumps(self._asdict())

    @classmethod
    def from_json(cls, text: str) -> SandboxPolicy:
        data = json.loads(text)
        return cls(
            confine=bool(data["confine"]),
            writable=tuple(str(p) for p in data["writable"]),
            network=bool(data["network"]),
            protect_git=tuple(str(p) for p in data["protect_git"]),
            landlock=bool(data["landlock"]),
            namespaces=bool(data["namespaces"]),
        )


def default_writable_roots(cwd: str) -> list[str]:
    """Codex's workspace-write roots: the working directory and the temp directories."""
    roots = [cwd, "/tmp"]
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and os.path.realpath(tmpdir) not in roots:
        roots.append(os.path.realpath(tmpdir))
    return roots

"""The OS sandbox every command the model runs is confined by (Linux: Landlock and namespaces).

    policy      SandboxPolicy: what one command may do (plain data, crosses to the wrapper as JSON)
    landlock    the Landlock syscalls: read anywhere, write beneath the writable roots, no TCP
    namespaces  user + network namespace (no network, loopback included) and a mount namespace
                (`.git` read-only inside the writable roots)
    seccomp     a syscall filter: io_uring, keyrings, bpf, perf events, userfaultfd, kexec and the
                module calls fail with EPERM
    tree        the processes beneath a subreaper, and killing all of them
    exec        the wrapper a command runs under (`python -m ctxscope.harness.sandbox.exec`)
    launcher    how the wrapper starts: its code from a sealed memfd, the base interpreter, -I -S
    support     what this kernel offers (probed once), the policy of a sandbox mode, how a command
                is wrapped, and the sentence that tells the person and the model what is enforced

The wrapper side (policy, landlock, namespaces, seccomp, tree, exec) uses only the standard library, so it
starts fast; this package imports nothing else of the harness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:
    from ctxscope.harness.sandbox.policy import SandboxPolicy, default_writable_roots
    from ctxscope.harness.sandbox.support import (
        Capabilities,
        capabilities,
        enforcement,
        policy_for,
        unenforced,
        wrap_command,
    )

__all__ = [
    "Capabilities",
    "SandboxPolicy",
    "capabilities",
    "default_writable_roots",
    "enforcement",
    "policy_for",
    "unenforced",
    "wrap_command",
]

_WHERE = {
    "SandboxPolicy": "ctxscope.harness.sandbox.policy",
    "default_writable_roots": "ctxscope.harness.sandbox.policy",
    "Capabilities": "ctxscope.harness.sandbox.support",
    "capabilities": "ctxscope.harness.sandbox.support",
    "enforcement": "ctxscope.harness.sandbox.support",
    "policy_for": "ctxscope.harness.sandbox.support",
    "unenforced": "ctxscope.harness.sandbox.support",
    "wrap_command": "ctxscope.harness.sandbox.support",
}

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

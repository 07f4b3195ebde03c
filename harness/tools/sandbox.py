"""Sandbox modes and approval policies: the rules checked in the tool layer, and the OS sandbox
every command then runs in.

Two layers. Before anything runs, the rules below decide whether a call may run, needs approval,
or is refused, and outputs say which rule asked, approved or refused:

    sandbox mode        exec_command                           file tools (apply_patch, read_*)
    read-only           known-safe read-only commands run;     writes need approval; reads confined
                        anything else needs approval           to the workspace roots
    workspace-write     runs; asking to escalate               writes and reads confined to the
                        (sandbox_permissions) needs approval   workspace roots; never into `.git`
    danger-full-access  runs                                   anywhere

    approval policy     never: never ask; what would need approval is refused
                        on-request: ask only for what the table above says
                        untrusted: also ask for every command not on the known-safe list, and
                        for every file change

A headless session (`ctx.approver is None`) refuses whatever would need approval.

Then every command runs under the OS sandbox of its mode (`command_policy`, `ctxscope.harness.sandbox`):
read-only allows no writes, workspace-write allows writes only beneath the writable roots with
`.git` read-only, and with network access off there is no network, loopback included; planning
turns' commands go through the same path. A command the person approved (an escalation with
`sandbox_permissions="require_escalated"`, or one the rules above asked about) runs as approved,
unconfined, as in Codex; so does everything in danger-full-access.

Known-safe git that runs without approval is hardened (`git_guard`): it needs approval when the
repository's own config defines programs for git to run, and otherwise runs with those switched off.
In workspace-write every git a command runs goes through `git_shim`'s `git` on PATH, which turns the
repository's programs off and says so; no command gets the environment's `GIT_*` variables.
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxscope.harness.sandbox.policy import SandboxPolicy
from ctxscope.harness.sandbox.support import enforcement, policy_for
from ctxscope.harness.tools.base import ToolError
from ctxscope.harness.tools.call_context import ApprovalRequest, ToolContext
from ctxscope.harness.tools.git_guard import POSIX_SHELLS, repository_program_keys
from ctxscope.harness.tools.known_safe import is_known_safe_command, simple_commands

ESCALATE = "require_escalated"
SANDBOX_PERMISSIONS = ("use_default", ESCALATE)


def _grants_by_safety(ctx: ToolContext) -> bool:
    """Whether these rules let a command run without approval only because it is known-safe."""
    return ctx.sandbox_mode == "read-only" or ctx.approval_policy == "untrusted"


def runs_read_only_git(ctx: ToolContext, cmd: str, workdir: Path | None = None) -> bool:
    """Whether `cmd` is known-safe git that runs without approval, so it must run hardened."""
    commands = simple_commands(cmd, workdir or ctx.cwd)
    return (
        _grants_by_safety(ctx)
        and is_known_safe_command(cmd, workdir or ctx.cwd)
        and commands is not None
        and any(argv[:1] == [("git", False)] for argv in commands)
    )


def _git_unsafe_reason(ctx: ToolContext, cmd: str, workdir: Path, shell: str) -> str | None:
    """Why known-safe git in `cmd` is not safe here after all, or None."""
    if not runs_read_only_git(ctx, cmd, workdir):
        return None
    keys = repository_program_keys(workdir)
    if keys:
        return f"the repository's git config makes git run programs ({', '.join(keys)})"
    if Path(shell).name not in POSIX_SHELLS:
        return f"read-only git is hardened through a POSIX shell function, which {shell} cannot run"
    return None


def exec_approval_reason(
    ctx: ToolContext, cmd: str, escalate: bool, workdir: Path | None = None, shell: str = "bash"
) -> str | None:
    """Why running `cmd` needs approval under the context's rules, or None when it may just run."""
    git_reason = _git_unsafe_reason(ctx, cmd, workdir or ctx.cwd, shell)
    safe = is_known_safe_command(cmd, workdir or ctx.cwd) and git_reason is None
    untrusted = ctx.approval_policy == "untrusted" and not safe
    untrusted_reason = "approval policy `untrusted`: " + (
        git_reason or "the command is not on the known-safe read-only list"
    )
    if ctx.sandbox_mode == "danger-full-access":
        return untrusted_reason if untrusted else None
    if escalate:
        return (
            f"the command asks to run outside the `{ctx.sandbox_mode}` sandbox "
            f"(sandbox_permissions={ESCALATE})"
        )
    if untrusted:
        return untrusted_reason
    if ctx.sandbox_mode == "read-only" and not safe:
        if git_reason:
            return f"sandbox `read-only`: {git_reason}"
        if not ctx.sandbox_capabilities().landlock:
            return (
                "sandbox `read-only`: no OS-level sandbox is available, so only known-safe read-only "
                "commands run without approval"
            )
        return "sandbox `read-only`: only known-safe read-only commands run without approval"
    return None


def command_policy(ctx: ToolContext, *, escalated: bool) -> SandboxPolicy:
    """The OS confinement of the next command; `escalated`: the person approved it, so it runs unconfined."""
    mode = "danger-full-access" if escalated else ctx.sandbox_mode
    roots = [str(r) for r in ctx.command_writable_roots()]
    return policy_for(mode, roots, network=ctx.network_access, caps=ctx.sandbox_capabilities())


# What a command prints when the kernel refused it (bash, coreutils, Python, curl, git).
_FS_DENIALS = ("permission denied", "operation not permitted", "read-only file system")
_NET_DENIALS = (
    "network is unreachable",
    "couldn't connect to server",
    "could not resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "connection refused",
)


def sandbox_denial_note(
    ctx: ToolContext, policy: SandboxPolicy, output: bytes, exit_code: int | None
) -> str | None:
    """A line for a failed command's output when the sandbox likely caused the failure, or None."""
    if not policy.confine or exit_code in (None, 0):
        return None
    text = output.decode("utf-8", "replace").lower()
    denials = _FS_DENIALS if policy.network else _FS_DENIALS + _NET_DENIALS
    if not any(d in text for d in denials):
        return None
    mode = ctx.sandbox_mode
    how = enforcement(mode, policy.network, ctx.sandbox_capabilities())
    ask = (
        " If the task needs it, run the command again with sandbox_permissions=require_escalated and "
        "a justification; the user decides."
        if ctx.approval_policy != "never"
        else ""
    )
    return f"the command ran in the `{mode}` sandbox, which may have refused it. {how}{ask}"


def write_approval_reason(ctx: ToolContext) -> str | None:
    """Why changing files needs approval under the context's rules, or None."""
    if ctx.sandbox_mode == "read-only":
        return "sandbox `read-only`: file changes need approval"
    if ctx.approval_policy == "untrusted":
        return "approval policy `untrusted`: every file change needs approval"
    return None


def obtain_approval(ctx: ToolContext, request: ApprovalRequest) -> str:
    """Ask for approval by the rules; return a note for the output, or raise `ToolError` with the refusal."""
    head = f"{request.tool} was not run: {request.reason}."
    if ctx.approval_policy == "never":
        raise ToolError(
            f"{head} The approval policy is `never`, so approval cannot be requested. "
            "Do the task another way within the sandbox, or tell the user what is needed."
        )
    if ctx.approver is None:
        raise ToolError(
            f"{head} This session is headless, so no one can approve it. "
            "Do the task another way within the sandbox, or tell the user what is needed."
        )
    try:
        approved = bool(ctx.approver(request))
    except Exception as e:  # a broken prompt must not kill the turn; the model learns it was not run
        raise ToolError(f"{head} The approval prompt failed ({type(e).__name__}: {e}).") from e
    if not approved:
        raise ToolError(
            f"{head} The user declined. Do not retry the same action; ask the user how to proceed."
        )
    return f"approved by the user ({request.reason}; approval policy `{ctx.approval_policy}`)"


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def resolve_path(ctx: ToolContext, raw: str, *, write: bool) -> Path:
    """An absolute path for `raw` (relative to cwd) that is inside the workspace roots.

    `..` and symlinks are resolved before the check, so neither can escape. Outside the roots is
    allowed only in danger-full-access. Returns the normalised path (not the symlink target), so
    deleting a link deletes the link.
    """
    if not raw or not raw.strip():
        raise ToolError("path is empty; give a path relative to the working directory or an absolute one")
    if "\0" in raw:
        raise ToolError("path contains a NUL byte")
    lexical = Path(os.path.normpath(ctx.cwd / raw))
    if ctx.sandbox_mode == "danger-full-access":
        return lexical
    real = Path(os.path.realpath(lexical))
    roots = [Path(os.path.realpath(r)) for r in ctx.workspace_roots]
    via = f" (it resolves to {real})" if real != lexical else ""
    if not _inside(real, roots):
        what = "written" if write else "read"
        shown = ", ".join(str(r) for r in ctx.workspace_roots)
        raise ToolError(
            f"{raw} is outside the workspace{via} and cannot be {what} in sandbox `{ctx.sandbox_mode}`; "
            f"workspace roots: {shown}"
        )
    if write and any(_in_git_dir(real, root) for root in roots):
        # As in Codex, `.git` stays read-only: its hooks and config are programs git runs.
        raise ToolError(
            f"{raw} is inside a `.git` directory{via}, which is read-only in sandbox `{ctx.sandbox_mode}`; "
            "change the repository with git commands instead"
        )
    return lexical


def _in_git_dir(path: Path, root: Path) -> bool:
    """Whether `path` is `.git` or beneath a `.git` somewhere under `root`."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    return ".git" in parts

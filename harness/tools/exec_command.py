"""`exec_command`: run a shell command line as a session, the way Codex CLI 0.169 does.

The command runs as `<shell> -lc <cmd>` (bash by default) in its own process group, stderr merged
into stdout, stdin closed unless `tty` asks for a terminal (`exec_sessions`). The call returns when
the command exits (plus a short grace for its last output) or when `yield_time_ms` has passed;
a command still running is then a session that `write_stdin` polls or types into. There is no
timeout: a session lives until its command exits or the agent does. Processes a command leaves
behind (background jobs, `setsid`/`nohup` children) are killed when it exits, and the output says
which. A command's output is bounded while it is read (`command_output`: the first and last bytes
since the last call, the rest counted), so one that never stops writing costs neither memory nor
time; each call's output is cut to its budget with Codex's `…N tokens truncated…` where it was cut.

Every command runs in the OS sandbox of the session's mode (`sandbox.command_policy`: Landlock and
namespaces, see `ctxscope.harness.sandbox`); one the person approved runs unconfined. When a confined command
fails with what a refusal prints (`Permission denied`, `Read-only file system`, `Network is
unreachable`, ...), the output's `Sandbox:` line says so and how to ask for more.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.tools.base import ToolError, ToolKind, ToolResult, function_spec, parse_args
from ctxscope.harness.tools.call_context import ApprovalRequest, ToolContext
from ctxscope.harness.tools.command_output import BYTES_PER_TOKEN, MAX_OUTPUT_TOKENS, HeadTail, approx_tokens
from ctxscope.harness.tools.exec_sessions import SessionManager
from ctxscope.harness.tools.git_guard import (
    GIT_HARDENING_NOTE,
    POSIX_SHELLS,
    git_environment,
    harden_git_command,
)
from ctxscope.harness.tools.git_shim import clean_git_environment, shim_command, shim_environment
from ctxscope.harness.tools.sandbox import (
    ESCALATE,
    SANDBOX_PERMISSIONS,
    command_policy,
    exec_approval_reason,
    obtain_approval,
    runs_read_only_git,
    sandbox_denial_note,
)
from ctxscope.harness.tools.shell_env import command_environment

DEFAULT_YIELD_MS = 10_000
MAX_YIELD_MS = 300_000
DEFAULT_MAX_OUTPUT_TOKENS = 10_000


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    cmd: str = Field(min_length=1)
    workdir: str | None = None
    shell: str | None = None
    tty: bool = False
    yield_time_ms: int | None = Field(default=None, ge=0)
    max_output_tokens: int | None = Field(default=None, gt=0)
    login: bool = True
    sandbox_permissions: str | None = None
    justification: str | None = None
    prefix_rule: list[str] | None = None


def _command_env(ctx: ToolContext) -> dict[str, str]:
    # Credentials in the agent's own environment are not handed to commands the model writes (the rule
    # is in shell_env.py); `ctx.env` can still pass a variable on purpose.
    env = command_environment(os.environ, ctx.env_allow)
    # Nor the agent's GIT_* variables: GIT_CONFIG_*, GIT_EXTERNAL_DIFF, GIT_DIR would steer the git
    # the model runs (which program, which repository).
    env = clean_git_environment(env)
    # Pagers and colour codes would hang or clutter a non-interactive run.
    env.update({"PAGER": "cat", "GIT_PAGER": "cat", "NO_COLOR": "1", "TERM": "dumb"})
    env.update(ctx.env or {})
    return env


def format_output(
    start: float,
    output: HeadTail,
    cap: int,
    *,
    exit_code: int | None,
    session_id: int | None,
    killed: dict[int, str] | None = None,
    approval_note: str | None = None,
    git_note: str | None = None,
    sandbox_note: str | None = None,
) -> str:
    """Codex's header (chunk id, wall time, status, token count) then the output of this call."""
    sink = output.narrowed(cap)
    status = (
        f"Process exited with code {exit_code}"
        if session_id is None
        else f"Process running with session ID {session_id}"
    )
    lines = [
        f"Chunk ID: {secrets.token_hex(3)}",
        f"Wall time: {time.monotonic() - start:.4f} seconds",
        status,
        f"Original token count: {approx_tokens(sink.total)}",
    ]
    if killed:
        shown = ", ".join(f"{pid} ({name})" for pid, name in sorted(killed.items()))
        lines.append(f"Killed processes the command left running: {shown}")
    if approval_note:
        lines.append(f"Approval: {approval_note}")
    if git_note:
        lines.append(f"Git: {git_note}")
    if sandbox_note:
        lines.append(f"Sandbox: {sandbox_note}")
    lines.append("Output:")
    return "\n".join(lines) + "\n" + sink.text()


def output_cap(max_output_tokens: int | None) -> int:
    """Bytes of output one call returns at most."""
    return min(max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS) * BYTES_PER_TOKEN


def yield_seconds(yield_time_ms: int | None, default_ms: int) -> float:
    return min(default_ms if yield_time_ms is None else yield_time_ms, MAX_YIELD_MS) / 1000


class ExecCommand:
    """The `exec_command` tool."""

    name = "exec_command"
    kind: ToolKind = "function"

    def __init__(self, sessions: SessionManager | None = None) -> None:
        self.sessions = sessions or SessionManager()

    def spec(self) -> dict[str, Any]:
        """Wire spec (Codex 0.169's parameter set; the descriptions are ctxscope's)."""
        return function_spec(
            self.name,
            "Runs a command line in a shell in the working directory (or `workdir`). Returns when the "
            "command exits or after yield_time_ms; a command still running keeps going as a session "
            "whose id is in the output: read more of its output or type into it with write_stdin. "
            "Processes a command leaves behind are stopped when it exits.",
            {
                "cmd": {"type": "string", "description": "Shell command line to run."},
                "workdir": {"type": "string", "description": "Directory to run in; defaults to the cwd."},
                "shell": {
                    "type": "string",
                    "description": "Shell binary to run the command with (default bash).",
                },
                "tty": {
                    "type": "boolean",
                    "description": "Give the command a terminal, so write_stdin can type into it.",
                },
                "yield_time_ms": {
                    "type": "number",
                    "description": f"Return after this many ms if running (default {DEFAULT_YIELD_MS}).",
                },
                "max_output_tokens": {
                    "type": "number",
                    "description": f"Output budget of a call (default {DEFAULT_MAX_OUTPUT_TOKENS} tokens).",
                },
                "login": {
                    "type": "boolean",
                    "description": "Run as a login shell (`-lc`, the default) or plain `-c`.",
                },
                "sandbox_permissions": {
                    "type": "string",
                    "enum": list(SANDBOX_PERMISSIONS),
                    "description": f"`{ESCALATE}` asks to run outside the sandbox (needs approval).",
                },
                "justification": {
                    "type": "string",
                    "description": "Why the command needs escalation; shown to the user when asking.",
                },
                "prefix_rule": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "With an escalation: the command prefix the user could allow from now on.",
                },
            },
            ["cmd"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Check the rules, start the command, wait for its exit or the yield time."""
        a = parse_args(self.name, _Args, args)
        if a.sandbox_permissions is not None and a.sandbox_permissions not in SANDBOX_PERMISSIONS:
            raise ToolError(
                f"invalid arguments for exec_command: sandbox_permissions must be one of "
                f"{', '.join(SANDBOX_PERMISSIONS)}, got {a.sandbox_permissions!r}"
            )
        workdir = ctx.cwd if a.workdir is None else Path(os.path.normpath(ctx.cwd / a.workdir))
        if not workdir.is_dir():
            raise ToolError(f"workdir {workdir} does not exist or is not a directory")
        shell = a.shell or "bash"
        if shutil.which(shell) is None:
            raise ToolError(f"shell {shell!r} was not found; leave `shell` out to use bash")
        approval_note = None
        reason = exec_approval_reason(ctx, a.cmd, a.sandbox_permissions == ESCALATE, workdir, shell)
        if reason is not None:
            justification = a.justification
            if a.prefix_rule:
                rule = " ".join(a.prefix_rule)
                justification = (
                    f"{justification or ''} (asks to allow commands starting with: {rule})".strip()
                )
            request = ApprovalRequest(self.name, a.cmd, reason, workdir, justification)
            approval_note = obtain_approval(ctx, request)
        # Git that runs only because it is known-safe runs without the repository's programs.
        hardened = approval_note is None and runs_read_only_git(ctx, a.cmd, workdir)
        cmd = harden_git_command(a.cmd) if hardened else a.cmd
        # A command the person approved runs as approved, outside the OS sandbox (an escalation
        # asked for exactly that); everything else runs confined (danger-full-access has none).
        policy = command_policy(ctx, escalated=approval_note is not None)
        env = _command_env(ctx)
        if hardened:
            env = git_environment(env)
        elif policy.confine and ctx.sandbox_mode == "workspace-write":
            # Any git it runs (its own, a script's): without the repository's programs (git_shim).
            env, shim = shim_environment(env)
            if shim is not None and Path(shell).name in POSIX_SHELLS:
                cmd = shim_command(cmd, shim)
        start = time.monotonic()
        session = self.sessions.start([shell, "-lc" if a.login else "-c", cmd], workdir, env, a.tty, policy)
        snap = self.sessions.collect(session, yield_seconds(a.yield_time_ms, DEFAULT_YIELD_MS))
        exit_code = snap.exit.code if snap.exit else None
        text = format_output(
            start,
            snap.output,
            output_cap(a.max_output_tokens),
            exit_code=snap.exit.code if snap.exit else None,
            session_id=None if snap.exit else session.id,
            killed=snap.exit.killed if snap.exit else None,
            approval_note=approval_note,
            git_note=GIT_HARDENING_NOTE if hardened else None,
            sandbox_note=sandbox_denial_note(ctx, policy, snap.output.kept(), exit_code),
        )
        return ToolResult(text, success=snap.exit is None or snap.exit.code == 0)

    def close(self) -> None:
        """Kill every running session (the agent is exiting)."""
        self.sessions.close()

"""`exec_command`: run a shell command line as a real subprocess and report it the way Codex does.

The command runs as `bash -lc <cmd>` in its own process group, with stdin closed and stderr merged
into stdout. A timeout kills the whole group. Output is read by a thread into a bounded head+tail
buffer, so a command that prints gigabytes costs a fixed amount of memory; the model gets the head
and the tail with a marker saying how much was left out. There is no `write_stdin` session: the call
returns when the command ends (or is killed), and `yield_time_ms` is accepted only for compatibility.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ConfigDict, Field

from harness.tools.base import ToolError, ToolKind, ToolResult, function_spec, parse_args
from harness.tools.call_context import ApprovalRequest, ToolContext
from harness.tools.sandbox import ESCALATE, SANDBOX_PERMISSIONS, exec_approval_reason, obtain_approval
from harness.tools.shell_env import command_environment

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 3_600_000
DEFAULT_MAX_OUTPUT_TOKENS = 10_000
MAX_OUTPUT_TOKENS = 100_000  # the buffer is held in memory; a model asking for more gets this
BYTES_PER_TOKEN = 4  # the usual rough estimate; exact counts are not worth a tokenizer here
# How long to wait for background children that keep the output pipe open after the shell exits.
_DRAIN_GRACE_S = 2.0


def approx_tokens(n_bytes: int) -> int:
    """Rough token count of `n_bytes` of output."""
    return (n_bytes + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    cmd: str = Field(min_length=1)
    workdir: str | None = None
    timeout_ms: int | None = Field(default=None, gt=0)
    yield_time_ms: int | None = Field(default=None, ge=0)
    max_output_tokens: int | None = Field(default=None, gt=0)
    sandbox_permissions: str | None = None
    justification: str | None = None
    tty: bool | None = None
    login: bool = True


class HeadTail:
    """Keeps the first and last `cap // 2` bytes of a stream and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.half = max(cap // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        """Add one chunk."""
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.half:
                del self.tail[: len(self.tail) - self.half]

    def text(self) -> str:
        """The kept text, with a marker where bytes were left out."""
        omitted = self.total - len(self.head) - len(self.tail)
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if omitted <= 0:
            return head + tail
        return (
            f"{head}\n[... {omitted} bytes (~{approx_tokens(omitted)} tokens) omitted; narrow the command "
            f"or raise max_output_tokens ...]\n{tail}"
        )


def _pump(stream: IO[bytes], sink: HeadTail) -> None:
    while True:
        chunk = stream.read1(65536)  # type: ignore[attr-defined]
        if not chunk:
            return
        sink.feed(chunk)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # already gone


def _command_env(ctx: ToolContext) -> dict[str, str]:
    # Credentials in the agent's own environment are not handed to commands the model writes (the rule
    # is in shell_env.py); `ctx.env` can still pass a variable on purpose.
    env = command_environment(os.environ, ctx.env_allow)
    # Pagers and colour codes would hang or clutter a non-interactive run.
    env.update({"PAGER": "cat", "GIT_PAGER": "cat", "NO_COLOR": "1", "TERM": "dumb"})
    env.update(ctx.env or {})
    return env


class ExecCommand:
    """The `exec_command` tool."""

    name = "exec_command"
    kind: ToolKind = "function"

    def spec(self) -> dict[str, Any]:
        """Wire spec."""
        return function_spec(
            self.name,
            "Runs a command line with `bash -lc` in the working directory (or `workdir`) and returns its "
            "exit code and combined stdout/stderr. Long output keeps its beginning and end. The command "
            "is killed when it exceeds timeout_ms.",
            {
                "cmd": {"type": "string", "description": "Shell command line to run."},
                "workdir": {"type": "string", "description": "Directory to run in; defaults to the cwd."},
                "timeout_ms": {
                    "type": "number",
                    "description": f"Kill after this long (default {DEFAULT_TIMEOUT_MS}).",
                },
                "yield_time_ms": {
                    "type": "number",
                    "description": "Accepted for compatibility; the call waits for the command to finish.",
                },
                "max_output_tokens": {
                    "type": "number",
                    "description": f"Output budget in tokens (default {DEFAULT_MAX_OUTPUT_TOKENS}).",
                },
                "sandbox_permissions": {
                    "type": "string",
                    "enum": list(SANDBOX_PERMISSIONS),
                    "description": f"`{ESCALATE}` asks to run outside the sandbox (needs approval).",
                },
                "login": {
                    "type": "boolean",
                    "description": "Run as a login shell (`bash -lc`, the default) or plain `bash -c`.",
                },
                "justification": {
                    "type": "string",
                    "description": "Why the command needs escalation; shown to the user when asking.",
                },
            },
            ["cmd"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Check the rules, run the command, format the result."""
        a = parse_args(self.name, _Args, args)
        if a.sandbox_permissions is not None and a.sandbox_permissions not in SANDBOX_PERMISSIONS:
            raise ToolError(
                f"invalid arguments for exec_command: sandbox_permissions must be one of "
                f"{', '.join(SANDBOX_PERMISSIONS)}, got {a.sandbox_permissions!r}"
            )
        workdir = ctx.cwd if a.workdir is None else Path(os.path.normpath(ctx.cwd / a.workdir))
        if not workdir.is_dir():
            raise ToolError(f"workdir {workdir} does not exist or is not a directory")
        approval_note = None
        reason = exec_approval_reason(ctx, a.cmd, a.sandbox_permissions == ESCALATE)
        if reason is not None:
            request = ApprovalRequest(self.name, a.cmd, reason, workdir, a.justification)
            approval_note = obtain_approval(ctx, request)
        timeout_ms = min(a.timeout_ms or DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)
        cap = min(a.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS) * BYTES_PER_TOKEN
        argv = ["bash", "-lc" if a.login else "-c", a.cmd]
        return self._run(argv, workdir, timeout_ms, cap, ctx, approval_note)

    def _run(
        self,
        argv: list[str],
        workdir: Path,
        timeout_ms: int,
        cap: int,
        ctx: ToolContext,
        approval_note: str | None,
    ) -> ToolResult:
        sink = HeadTail(cap)
        start = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv,
                cwd=workdir,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group, so a timeout kills children too
                env=_command_env(ctx),
            )
        except OSError as e:
            raise ToolError(f"could not start bash: {e}") from e
        assert proc.stdout is not None
        reader = threading.Thread(target=_pump, args=(proc.stdout, sink), daemon=True)
        reader.start()
        timed_out = False
        try:
            code = proc.wait(timeout=timeout_ms / 1000)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            code = proc.wait()
        except BaseException:
            _kill_group(proc.pid)  # interrupted (Ctrl-C): do not leave the command running
            proc.wait()
            raise
        finally:
            reader.join(_DRAIN_GRACE_S)
            if reader.is_alive():
                # Background children still hold the pipe: the command is over, end them.
                _kill_group(proc.pid)
                reader.join(_DRAIN_GRACE_S)
            proc.stdout.close()
        wall = time.monotonic() - start
        if timed_out:
            status = (
                f"Process timed out after {timeout_ms / 1000:g} seconds and was killed "
                f"(timeout_ms={timeout_ms})"
            )
        else:
            status = f"Process exited with code {code}"
        lines = [
            f"Chunk ID: {secrets.token_hex(3)}",
            f"Wall time: {wall:.4f} seconds",
            status,
            f"Original token count: {approx_tokens(sink.total)}",
        ]
        if approval_note:
            lines.append(f"Approval: {approval_note}")
        lines.append("Output:")
        text = "\n".join(lines) + "\n" + sink.text()
        return ToolResult(text, success=not timed_out and code == 0)

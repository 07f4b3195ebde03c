"""`write_stdin`: type into a running exec_command session, or poll it for more output.

The call writes `chars` (nothing when empty) to the session's terminal, then waits until the
command exits or `yield_time_ms` passes, and returns the output since the previous call with the
same header as exec_command. A session whose command exited is ended (what it left running is
killed and named) and its id is no longer valid.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.tools.base import ToolKind, ToolResult, function_spec, parse_args
from ctxscope.harness.tools.call_context import ToolContext
from ctxscope.harness.tools.exec_command import format_output, output_cap, yield_seconds
from ctxscope.harness.tools.exec_sessions import SessionManager
from ctxscope.harness.tools.sandbox import sandbox_denial_note

__all__ = ["WriteStdin"]

TYPE_YIELD_MS = 250
"""Default wait after typing: enough for an interactive program to answer."""
POLL_YIELD_MS = 5_000
"""Default wait of a pure poll (empty chars): a poll that returns at once would just be repeated."""


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    session_id: int
    chars: str = ""
    yield_time_ms: int | None = Field(default=None, ge=0)
    max_output_tokens: int | None = Field(default=None, gt=0)


class WriteStdin:
    """The `write_stdin` tool (shares the exec_command tool's sessions)."""

    name = "write_stdin"
    kind: ToolKind = "function"

    def __init__(self, sessions: SessionManager) -> None:
        self.sessions = sessions

    def spec(self) -> dict[str, Any]:
        """Wire spec (Codex 0.169's parameter set; the descriptions are ctxscope's)."""
        return function_spec(
            self.name,
            "Types characters into a running exec_command session (started with tty=true), or with "
            "empty chars just waits for more output. Returns the output since the last call and "
            "whether the command is still running.",
            {
                "session_id": {"type": "number", "description": "The session id exec_command reported."},
                "chars": {"type": "string", "description": "Characters to type; empty to only poll."},
                "yield_time_ms": {
                    "type": "number",
                    "description": f"How long to wait for output (default {TYPE_YIELD_MS}, {POLL_YIELD_MS} "
                    "when only polling).",
                },
                "max_output_tokens": {
                    "type": "number",
                    "description": "Output budget of this call in tokens.",
                },
            },
            ["session_id"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        a = parse_args(self.name, _Args, args)
        session = self.sessions.get(a.session_id)
        start = time.monotonic()
        if a.chars:
            session.write(a.chars)
        snap = self.sessions.collect(
            session, yield_seconds(a.yield_time_ms, TYPE_YIELD_MS if a.chars else POLL_YIELD_MS)
        )
        text = format_output(
            start,
            snap.output,
            output_cap(a.max_output_tokens),
            exit_code=snap.exit.code if snap.exit else None,
            session_id=None if snap.exit else session.id,
            killed=snap.exit.killed if snap.exit else None,
            sandbox_note=sandbox_denial_note(
                ctx, session.policy, snap.output.kept(), snap.exit.code if snap.exit else None
            ),
        )
        return ToolResult(text, success=snap.exit is None or snap.exit.code == 0)

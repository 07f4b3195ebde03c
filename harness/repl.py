"""The interactive chat: a plain terminal loop; slash commands come from `harness.commands`.

Ctrl-C during a turn aborts the turn (a turn-aborted fragment is recorded) and returns to the prompt;
Ctrl-C or Ctrl-D at the prompt leaves.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from harness.commands import COMMANDS, is_command, run_command
from harness.runtime import AgentRuntime
from proxy.errors import CtxscopeError

__all__ = ["run_repl"]


def run_repl(runtime: AgentRuntime, read: Callable[[str], str] = input, err: TextIO | None = None) -> None:
    """Read prompts until /quit or end of input."""
    err = err or sys.stderr
    names = " ".join(c.name for c in COMMANDS)  # from the registry, so none is left out
    err.write(f"ctxscope agent — type a task, or {names}\n")
    while True:
        try:
            line = read("› ")
        except (EOFError, KeyboardInterrupt):
            # Ctrl-D or Ctrl-C at the prompt leaves; the session file is complete as it is.
            err.write("\n")
            return
        if not line.strip():
            continue
        if is_command(line):
            try:
                if run_command(line, runtime, err).quit:
                    return
            except KeyboardInterrupt:  # a command that runs a turn (/plan task) is interrupted alike
                err.write("\nturn aborted\n")
            except CtxscopeError as e:
                err.write(f"error: {e}\n")
            continue
        assert runtime.agent is not None
        try:
            runtime.agent.run_turn(line)
        except KeyboardInterrupt:
            err.write("\nturn aborted\n")
        except CtxscopeError as e:
            # The session file is intact: the person can retry or /quit and resume later.
            err.write(f"error: {e}\n")

"""The interactive chat: a plain terminal loop with slash commands.

    /model NAME   switch model (history kept, a model-switch fragment is appended)
    /status       session, model, provider, capture file, request count
    /new          start a fresh session with the same settings
    /cd DIR       change the working directory (the next request carries the diff)
    /quit         leave (also Ctrl-D)

Ctrl-C during a turn aborts the turn (a turn-aborted fragment is recorded) and returns to the prompt;
Ctrl-C or Ctrl-D at the prompt leaves.
Later issues add /plan, /goal, /compact as more entries in `COMMANDS`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from harness.runtime import AgentRuntime
from proxy.errors import CtxscopeError

__all__ = ["COMMANDS", "run_repl"]

COMMANDS: dict[str, str] = {
    "/model": "/model NAME — switch model",
    "/status": "/status — show session and backend",
    "/new": "/new — start a new session",
    "/cd": "/cd DIR — change the working directory",
    "/quit": "/quit — leave",
}


def _status(runtime: AgentRuntime, err: TextIO) -> None:
    assert runtime.agent is not None
    info = runtime.agent.status()
    info["capture"] = str(runtime.capture_path) if runtime.capture_path else "off"
    for key, value in info.items():
        err.write(f"  {key}: {value}\n")


def handle_command(line: str, runtime: AgentRuntime, err: TextIO) -> bool:
    """Run one slash command; False means quit."""
    assert runtime.agent is not None
    name, _, arg = line.strip().partition(" ")
    arg = arg.strip()
    if name in ("/quit", "/exit"):
        return False
    if name == "/model":
        if not arg:
            err.write(f"model: {runtime.agent.model} (usage: /model NAME)\n")
        else:
            runtime.agent.switch_model(arg)
    elif name == "/cd":
        err.write(f"cwd: {runtime.agent.change_cwd(Path(arg or '.'))}\n")
    elif name == "/status":
        _status(runtime, err)
    elif name == "/new":
        agent = runtime.new_session()
        err.write(f"new session {agent.session_id}\n")
    else:
        err.write(f"unknown command {name}; commands: {', '.join(COMMANDS)}\n")
    return True


def run_repl(runtime: AgentRuntime, read: Callable[[str], str] = input, err: TextIO | None = None) -> None:
    """Read prompts until /quit or end of input."""
    err = err or sys.stderr
    err.write(f"ctxscope agent — type a task, or {' '.join(COMMANDS)}\n")  # the table, so none is left out
    while True:
        try:
            line = read("› ")
        except (EOFError, KeyboardInterrupt):
            # Ctrl-D or Ctrl-C at the prompt leaves; the session file is complete as it is.
            err.write("\n")
            return
        if not line.strip():
            continue
        if line.startswith("/"):
            try:
                if not handle_command(line, runtime, err):
                    return
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

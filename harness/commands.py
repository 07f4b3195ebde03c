"""Slash commands: one registry, reached from the REPL and from `ctxscope agent -p "/command ..."`.

Each command is one `Command` (name, usage, help, handler) in `COMMANDS`; a front end never
interprets a command itself, it calls `run_command(line, runtime, out)`. A handler writes what it
has to say to `out` (the REPL's stderr, print mode's stdout) and returns a `CommandResult`: whether
the front end should leave, and the turn it ran, if it ran one (so `-p "/plan task"` can print the
answer like any task). Adding /plan, /goal or /compact means adding one entry here.

Errors a person should fix (unknown command, a bad argument) raise `ConfigError` with one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ctxscope.harness.command_result import CommandResult
from ctxscope.harness.compaction.said import compaction_line
from ctxscope.harness.modes.plan.command import PLAN_USAGE, plan_command
from ctxscope.harness.sandbox import enforcement
from ctxscope.proxy.errors import ConfigError

if TYPE_CHECKING:
    from ctxscope.harness.agent import Agent
    from ctxscope.harness.runtime import AgentRuntime

__all__ = ["COMMANDS", "Command", "CommandResult", "find_command", "is_command", "run_command"]


CONTINUE = CommandResult()

Handler = Callable[["AgentRuntime", str, TextIO], CommandResult]
"""`handler(runtime, argument, out)`: the argument is the text after the name, stripped."""


@dataclass(frozen=True)
class Command:
    """One slash command."""

    name: str
    """With the slash: `/model`."""
    usage: str
    """How to call it: `/model NAME`."""
    help: str
    """What it does, in a few words."""
    handler: Handler
    aliases: tuple[str, ...] = ()

    def line(self) -> str:
        """`/model NAME — switch model`, for help listings."""
        return f"{self.usage} — {self.help}"


def _agent(runtime: AgentRuntime) -> Agent:
    if runtime.agent is None:
        raise ConfigError("no agent is running: start the runtime before sending commands")
    return runtime.agent


def _model(runtime: AgentRuntime, arg: str, out: TextIO) -> CommandResult:
    agent = _agent(runtime)
    if not arg:
        out.write(f"model: {agent.model} (usage: /model NAME)\n")
    else:
        agent.switch_model(arg)
    return CONTINUE


def _status(runtime: AgentRuntime, arg: str, out: TextIO) -> CommandResult:
    info = _agent(runtime).status()
    route = runtime.route.base_url if runtime.route is not None else None
    if runtime.provider.name == "script" and route:
        info["backend"] = f"{route} (script cassette {runtime.config.script})"
    # Requests go to the capture proxy, which forwards them to the backend: show both, apart.
    capturing = runtime.capture_path is not None and route is not None
    info["capture_proxy"] = route if capturing else "none"
    info["capture"] = str(runtime.capture_path) if runtime.capture_path else "off"
    ctx = _agent(runtime).router.ctx
    caps = ctx.sandbox_capabilities()
    info["os_sandbox"] = f"{caps.summary()}; {enforcement(ctx.sandbox_mode, ctx.network_access, caps)}"
    for key, value in info.items():
        out.write(f"  {key}: {value}\n")
    return CONTINUE


def _new(runtime: AgentRuntime, arg: str, out: TextIO) -> CommandResult:
    _agent(runtime)
    out.write(f"new session {runtime.new_session().session_id}\n")
    return CONTINUE


def _cd(runtime: AgentRuntime, arg: str, out: TextIO) -> CommandResult:
    out.write(f"cwd: {_agent(runtime).change_cwd(Path(arg or '.'))}\n")
    return CONTINUE


def _quit(runtime: AgentRuntime, arg: str, out: TextIO) -> CommandResult:
    return CommandResult(quit=True)


def _goal(runtime: AgentRuntime, arg: str, out: TextIO) -> CommandResult:
    from ctxscope.harness.goal import runner  # the goal loop sits above the agent; load it when used

    agent = _agent(runtime)
    action = arg.split()[0] if arg else ""
    if not arg:
        out.write(runner.describe_goal(agent))
        return CONTINUE
    if action in ("pause", "clear") and arg == action:
        runner.pause_goal(agent) if action == "pause" else runner.clear_goal(agent)
        out.write(f"goal {'paused' if action == 'pause' else 'cleared'}\n")
        return CONTINUE
    if action == "resume" and arg == action:
        runner.resume_goal(agent)
    else:
        budget, objective = _budget_and_objective(arg, runtime.options.goal_budget)
        runner.start_goal(agent, objective, budget)
    return CommandResult(turn=runner.run_goal(agent))


def _budget_and_objective(arg: str, default: int | None) -> tuple[int | None, str]:
    """`--budget N objective` (or the `--goal-budget` flag's value) and the objective."""
    words = arg.split(maxsplit=2)
    if words[0] != "--budget":
        return default, arg
    if len(words) < 3 or not words[1].lstrip("-").isdigit():
        raise ConfigError("usage: /goal --budget TOKENS <objective> (TOKENS a whole number)")
    return int(words[1]), words[2]


def _compact(runtime: AgentRuntime, arg: str, out: TextIO) -> CommandResult:
    agent = _agent(runtime)
    before = len(agent.history)
    if agent.compact("manual"):
        out.write(compaction_line("manual", before, len(agent.history), agent.window) + "\n")
    return CONTINUE


COMMANDS: tuple[Command, ...] = (
    Command("/model", "/model NAME", "switch model", _model),
    Command("/status", "/status", "show session and backend", _status),
    Command("/new", "/new", "start a new session", _new),
    Command("/cd", "/cd DIR", "change the working directory", _cd),
    Command("/plan", PLAN_USAGE, "plan first: enter plan mode, approve or leave it", plan_command),
    Command(
        "/goal",
        "/goal [--budget N] <objective> | pause | resume | clear",
        "pursue a goal over several turns (no argument: show it)",
        _goal,
    ),
    Command("/compact", "/compact", "summarise the history into a new context window", _compact),
    Command("/quit", "/quit", "leave", _quit, aliases=("/exit",)),
)


def is_command(line: str) -> bool:
    """Whether `line` is a slash command rather than a task."""
    return line.lstrip().startswith("/")


def find_command(name: str) -> Command | None:
    """The command called `name` (or one of its aliases), or None."""
    for command in COMMANDS:
        if name == command.name or name in command.aliases:
            return command
    return None


def run_command(line: str, runtime: AgentRuntime, out: TextIO) -> CommandResult:
    """Run one slash command line; `ConfigError` for an unknown command."""
    name, _, arg = line.strip().partition(" ")
    command = find_command(name)
    if command is None:
        known = ", ".join(c.name for c in COMMANDS)
        raise ConfigError(f"unknown command {name}; commands: {known}")
    return command.handler(runtime, arg.strip(), out)

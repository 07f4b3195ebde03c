"""`ctxscope agent`: the harness on the command line (interactive, `-p` print mode, `--json`).

Capture is on by default: every request goes through the in-process proxy into a recording in
ctxscope's recordings directory (the path is printed on stderr at start); `--capture FILE` picks
the file, `--no-capture` turns it off. The lead's `ctxscope/cli.py` calls `register(app)`.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from harness.agent import TurnResult
from harness.cli_settings import with_setting_options
from harness.commands import is_command, run_command
from harness.errors import UpstreamError
from harness.events import SessionStarted
from harness.goal.runner import check_budget, run_prompt
from harness.modes.plan import split_proposed_plan
from harness.output import InteractivePrinter, JsonPrinter, PrintModePrinter
from harness.repl import run_repl
from harness.runtime import AgentOptions, AgentRuntime
from harness.tools import Answer, ApprovalRequest, Question
from proxy.errors import ConfigError

__all__ = ["SESSION_NOT_SAVED", "agent_command", "register"]

SESSION_NOT_SAVED = 74
"""Exit status when session entries never reached the session file (sysexits' EX_IOERR)."""


def _agent_command(
    prompt: Annotated[
        str | None,
        typer.Option(
            "-p", "--print", help="Run one task headless; the final answer goes to stdout, notices to stderr."
        ),
    ] = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="With -p: one JSON event per line on stdout.")
    ] = False,
    session: Annotated[str | None, typer.Option(help="Resume this session (id or file).")] = None,
    fork: Annotated[
        str | None, typer.Option(help="Copy this session to a new id and continue the copy.")
    ] = None,
    cwd: Annotated[Path | None, typer.Option(help="Working directory of the agent.")] = None,
    capture: Annotated[Path | None, typer.Option(help="Write the recording to this file.")] = None,
    no_capture: Annotated[bool, typer.Option("--no-capture", help="Do not record.")] = False,
    config: Annotated[
        Path | None, typer.Option(help="config.toml to use instead of the one in the ctxscope home.")
    ] = None,
    auth_file: Annotated[Path | None, typer.Option(help="auth.json for --provider chatgpt.")] = None,
    goal_budget: Annotated[
        int | None, typer.Option(help='Token budget of the goal set by -p "/goal <objective>".')
    ] = None,
    plan: Annotated[
        bool,
        typer.Option(
            "--plan", help="Start in plan mode; with -p, print exactly the submitted plan on stdout."
        ),
    ] = False,
    *,
    settings: dict[str, Any],
) -> None:
    """Run ctxscope's Codex-style coding agent (with capture on by default)."""
    if json_out and prompt is None:
        raise ConfigError('--json needs a task: use -p "task" --json')
    if prompt is not None and not prompt.strip():
        raise ConfigError('-p needs a task: use -p "what to do" (or leave -p out for the chat)')
    if goal_budget is not None:
        if prompt is None or not prompt.strip().startswith("/goal "):
            raise ConfigError('--goal-budget goes with a goal: -p "/goal <objective>" --goal-budget N')
        check_budget(goal_budget)
    if session and fork:
        raise ConfigError("use either --session (resume) or --fork (copy), not both")
    headless = prompt is not None
    emit = JsonPrinter() if json_out else (PrintModePrinter() if headless else InteractivePrinter())
    options = AgentOptions(
        session=session,
        fork=fork,
        cwd=cwd,
        capture=capture,
        no_capture=no_capture,
        config_path=config,
        auth_file=auth_file,
        goal_budget=goal_budget,
        settings=settings,
        approver=None if headless else _terminal_approver,
        ask_user=None if headless else _terminal_ask,
        plan=plan,
        # The chat announces Default mode from the first request (Codex TUI); -p does not (codex exec).
        announce_mode=not headless,
    )
    with AgentRuntime(options, emit=emit) as runtime:
        _drive(runtime, prompt, json_out)
    if runtime.session_entries_lost:
        # The session file lacks part of this run (said above, with the count): not a success.
        raise typer.Exit(SESSION_NOT_SAVED)


def _drive(runtime: AgentRuntime, prompt: str | None, json_out: bool) -> None:
    """The chat, or one headless task, on a started runtime."""
    assert runtime.agent is not None
    _announce(runtime, json_out)
    if prompt is None:
        run_repl(runtime)
        return
    sid = runtime.agent.session_id
    runtime.agent.turn_trigger = "exec"  # a headless run, like `codex exec`
    try:
        result = _run_headless(runtime, prompt, json_out)
    except UpstreamError as e:
        raise UpstreamError(
            f"{e}; the session is saved: continue with --session {sid}", status=e.status, code=e.code
        ) from e
    except KeyboardInterrupt:
        # The agent already recorded the aborted turn; say how to pick it up (130 = SIGINT).
        sys.stderr.write(f"\ninterrupted; the session is saved: continue with --session {sid}\n")
        raise typer.Exit(130) from None
    if result is not None and not json_out:
        sys.stdout.write(result.final_text + ("\n" if not result.final_text.endswith("\n") else ""))
        sys.stdout.flush()


def _run_headless(runtime: AgentRuntime, prompt: str, json_out: bool) -> TurnResult | None:
    """`-p "task"` runs a turn; `-p "/command ..."` runs the command (the REPL's own registry).

    A command's text goes to stdout, its result like any answer; with `--json` stdout holds only
    events, so the text goes to stderr. A planning turn that submitted a plan prints exactly the plan
    (and says on stderr how to approve it)."""
    assert runtime.agent is not None and runtime.plan is not None
    before = runtime.plan.state.revision
    if not is_command(prompt):
        result: TurnResult | None = run_prompt(runtime.agent, prompt)
    else:
        result = run_command(prompt, runtime, sys.stderr if json_out else sys.stdout).turn
    plan = runtime.plan
    if result is None or plan.agent is not runtime.agent:
        return result
    if plan.state.revision == before:
        # No plan this turn: what the person sees is the text without any (unclosed) plan block.
        visible = split_proposed_plan(result.final_text).visible if plan.planning else result.final_text
        return replace(result, final_text=visible)
    sid, revision = plan.agent.session_id, plan.state.revision
    sys.stderr.write(
        f"plan revision {revision} saved; approve and implement it with: "
        f'ctxscope agent --session {sid} -p "/plan approve {revision}" '
        '(add "fresh" to implement in a new session)\n'
    )
    return TurnResult(final_text=plan.state.draft or "", steps=result.steps, stopped=result.stopped)


def _announce(runtime: AgentRuntime, json_out: bool) -> None:
    assert runtime.agent is not None
    info = SessionStarted(
        session_id=runtime.agent.session_id,
        session_file=str(runtime.agent.session.path),
        model=runtime.agent.model,
        provider=runtime.provider.name,
        capture=str(runtime.capture_path) if runtime.capture_path else None,
    )
    if json_out:
        JsonPrinter()(info)
        return
    sys.stderr.write(f"session: {info.session_id}\n")
    sys.stderr.write(f"capture: {info.capture or 'off'}\n")
    sys.stderr.flush()


def _terminal_approver(request: ApprovalRequest) -> bool:
    """Ask on the terminal whether a tool action may run."""
    sys.stderr.write(f"\napprove {request.tool}: {request.summary}\n  ({request.reason}) [y/N] ")
    sys.stderr.flush()
    try:
        return input().strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _terminal_ask(questions: list[Question]) -> dict[str, Answer]:
    """Ask structured questions on the terminal; an empty answer takes the recommended option."""
    answers: dict[str, Answer] = {}
    for q in questions:
        options = q.options
        sys.stderr.write(f"\n{q.question}\n")
        for n, opt in enumerate(options, 1):
            sys.stderr.write(f"  {n}. {opt.label} — {opt.description}\n")
        sys.stderr.write("  choice (number or text, Enter = 1): ")
        sys.stderr.flush()
        try:
            raw = input().strip()
        except EOFError:
            raw = ""
        if not raw and options:
            answers[q.id] = options[0].label
        elif raw.isdigit() and 1 <= int(raw) <= len(options):
            answers[q.id] = options[int(raw) - 1].label
        else:
            answers[q.id] = raw
    return answers


agent_command = with_setting_options(_agent_command)
"""`ctxscope agent`: its own options, plus one per setting with a flag (`harness.cli_settings`)."""


def register(app: typer.Typer) -> None:
    """Add `agent` to the ctxscope command."""
    app.command("agent")(agent_command)

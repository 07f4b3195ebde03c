"""`ctxscope agent`: the harness on the command line (interactive, `-p` print mode, `--json`).

Capture is on by default: every request goes through the in-process proxy into a recording in
ctxscope's recordings directory (the path is printed on stderr at start); `--capture FILE` picks
the file, `--no-capture` turns it off. The lead's `ctxscope/cli.py` calls `register(app)`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ctxscope.harness.agent import TurnResult
from ctxscope.harness.cli_settings import with_setting_options
from ctxscope.harness.commands import is_command, run_command
from ctxscope.harness.errors import UpstreamError
from ctxscope.harness.goal.runner import check_budget, run_prompt
from ctxscope.harness.modes.plan import split_proposed_plan
from ctxscope.harness.modes.plan.texts import NO_PLAN_EXIT_CODE, no_plan_submitted
from ctxscope.harness.output import InteractivePrinter, JsonPrinter, PrintModePrinter
from ctxscope.harness.repl import run_repl
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.terminal_prompts import terminal_approver, terminal_ask
from ctxscope.proxy.errors import ConfigError

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
        approver=None if headless else terminal_approver,
        ask_user=None if headless else terminal_ask,
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
    if prompt is None:
        run_repl(runtime)
        return
    runtime.agent.turn_trigger = "exec"  # a headless run, like `codex exec`
    try:
        result = _run_headless(runtime, prompt, json_out)
    except UpstreamError as e:
        sid = runtime.agent.session_id  # a fresh plan handoff moved the run to a new session
        raise UpstreamError(
            f"{e}; the session is saved: continue with --session {sid}", status=e.status, code=e.code
        ) from e
    except KeyboardInterrupt:
        # The agent already recorded the aborted turn; say how to pick it up (130 = SIGINT).
        sid = runtime.agent.session_id
        sys.stderr.write(f"\ninterrupted; the session is saved: continue with --session {sid}\n")
        raise typer.Exit(130) from None
    if result is not None and not json_out:
        sys.stdout.write(result.final_text + ("\n" if not result.final_text.endswith("\n") else ""))
        sys.stdout.flush()


def _run_headless(runtime: AgentRuntime, prompt: str, json_out: bool) -> TurnResult | None:
    """`-p "task"` runs a turn; `-p "/command ..."` runs the command (the REPL's own registry).

    A command's text goes to stdout, its result like any answer; with `--json` stdout holds only
    events, so the text goes to stderr. A planning turn that submitted a plan prints exactly the plan
    (and says on stderr how to approve it); one that submitted none prints nothing on stdout and
    exits with `NO_PLAN_EXIT_CODE`."""
    assert runtime.agent is not None and runtime.plan is not None
    before = runtime.plan.state.revision
    if not is_command(prompt):
        result: TurnResult | None = run_prompt(runtime.agent, prompt)
    else:
        result = run_command(prompt, runtime, sys.stderr if json_out else sys.stdout).turn
    plan = runtime.plan
    if result is None or plan.agent is not runtime.agent:
        return result
    if plan.state.revision == before and plan.planning:
        # A planning turn without a submission (a question, an unfinished plan): stdout promises
        # exactly the plan, so it stays empty; what the model said goes to stderr with the notice.
        visible = split_proposed_plan(result.final_text).visible.strip()
        if visible and not json_out:
            sys.stderr.write(visible + "\n")
        plan.agent.notice(no_plan_submitted(plan.agent.session_id))
        raise typer.Exit(NO_PLAN_EXIT_CODE)
    if plan.state.revision == before:
        return result
    sid, revision = plan.agent.session_id, plan.state.revision
    sys.stderr.write(
        f"plan revision {revision} saved; approve and implement it with: "
        f'ctxscope agent --session {sid} -p "/plan approve {revision}" '
        '(add "fresh" to implement in a new session)\n'
    )
    return TurnResult(final_text=plan.state.draft or "", steps=result.steps, stopped=result.stopped)


agent_command = with_setting_options(_agent_command)
"""`ctxscope agent`: its own options, plus one per setting with a flag (`ctxscope.harness.cli_settings`)."""


def register(app: typer.Typer) -> None:
    """Add `agent` to the ctxscope command."""
    app.command("agent")(agent_command)

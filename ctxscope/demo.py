"""`ctxscope demo`: the whole loop on one machine, offline, in one command.

A workflow across all three packages (the harness runs, the proxy records, the inspector explains),
so it lives with the command that joins them rather than in any one of them.

It builds a small git workspace (a root AGENTS.md, a package with its own AGENTS.md, a skill), runs
ctxscope's harness in it against the script cassette shipped in the package (`ctxscope/data/
demo-script.json`, read with importlib.resources so an installed wheel has it too) with
capture on, moves into the package (its AGENTS.md replaces the root one), switches model, and then
opens the inspector TUI on the capture (in a terminal; `--no-tui` or a pipe prints the inspector's
timeline of what the model saw and why each request changed instead).
"""

from __future__ import annotations

import shlex
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from ctxscope.demo_workspace import build_workspace
from ctxscope.harness.output import InteractivePrinter
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.tools.shell_env import without_user_profile
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.reports import diff_report
from ctxscope.inspector.reports.text import render_text
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.home import new_recording_path
from ctxscope.tour import RegressionCheck, render_regression, run_tour

__all__ = ["DemoResult", "build_workspace", "run_demo", "register", "DEMO_SCRIPT"]

DEMO_SCRIPT = resources.files("ctxscope") / "data" / "demo-script.json"
"""The offline model's answers, shipped as package data."""

PROMPTS = (
    "Add a greet(name) helper in pkg/. Follow $demo-skill.",
    "Now add a test for it.",
    "Summarise what changed.",
)


@dataclass
class DemoResult:
    workspace: Path
    recording: Path
    answers: list[str]


def run_demo(root: Path, capture: Path, model_after: str = "gpt-5-mini") -> DemoResult:
    """Run the three demo turns with capture into `capture`."""
    if not DEMO_SCRIPT.is_file():
        raise ConfigError("the demo script is missing from this installation of ctxscope: reinstall it")
    with resources.as_file(DEMO_SCRIPT) as script:  # a real file even if the package is zipped
        return _run_demo(root, capture, script, model_after)


def _run_demo(root: Path, capture: Path, script: Path, model_after: str) -> DemoResult:
    repo, skills = build_workspace(root)
    options = AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=capture,
        skill_dirs=[skills],
        sandbox="workspace-write",
        approval="never",
        sessions_dir=root / "sessions",
        command_env=without_user_profile(root / "shell-home"),  # the machine's profile is not the demo's
    )
    answers: list[str] = []
    printer = InteractivePrinter(out=sys.stderr, err=sys.stderr)
    with AgentRuntime(options, emit=printer) as runtime:
        agent = runtime.agent
        assert agent is not None
        for index, prompt in enumerate(PROMPTS):
            if index == 1:
                agent.change_cwd(Path("pkg"))
                print(f"\n/cd pkg   (now in {repo / 'pkg'})", file=sys.stderr)
            if index == 2:
                agent.switch_model(model_after)
            print(f"\nuser: {prompt}", file=sys.stderr)
            answers.append(agent.run_turn(prompt).final_text)
    return DemoResult(workspace=repo, recording=capture, answers=answers)


def opens_tui(no_tui: bool, *, stdin_tty: bool, stdout_tty: bool) -> bool:
    """The demo ends in the inspector TUI only in a terminal and unless `--no-tui` asks for the
    printed report (pipes and CI get the report)."""
    return not no_tui and stdin_tty and stdout_tty


def demo(
    workdir: Annotated[
        Path | None, typer.Option("--workdir", help="Build the demo workspace here (default: a temp dir).")
    ] = None,
    capture: Annotated[
        Path | None, typer.Option("--capture", help="Write the recording to this file.")
    ] = None,
    no_tui: Annotated[
        bool, typer.Option("--no-tui", help="Print the report instead of opening the inspector TUI.")
    ] = False,
    tour: Annotated[
        bool,
        typer.Option(
            "--tour",
            help="Every mechanism, one chapter each (cwd, model switch, plan mode, goal, compaction), "
            "then the recording used as a regression test of a prompt change.",
        ),
    ] = False,
) -> None:
    """Run the agent offline on a demo repo with capture on, then show what changed turn by turn."""
    root = (workdir or Path(tempfile.mkdtemp(prefix="ctxscope-demo-"))).resolve()
    out = capture or new_recording_path("tour" if tour else "demo")
    regression: RegressionCheck | None = None
    try:
        if tour:
            toured = run_tour(root, out, emit=InteractivePrinter(out=sys.stderr, err=sys.stderr))
            regression = toured.regression
            result = DemoResult(workspace=toured.workspace, recording=out, answers=[])
        else:
            result = run_demo(root, out)
    except OSError as err:  # `--workdir /sys/x`, a full disk: one line, not a traceback
        where = err.filename or root
        raise ConfigError(
            f"cannot build the demo in {where} ({err.strerror or err}); choose another --workdir"
        ) from None
    if workdir is None:
        # Kept on purpose: the session in it can be resumed and the files the agent wrote looked at.
        print(
            f"\ndemo workspace kept in {root} (the repo, its session); remove it with: "
            f"rm -rf {shlex.quote(str(root))}",
            file=sys.stderr,
        )
    if regression is not None:
        # Printed before the TUI opens (and to stderr), so it is still on screen when the TUI quits.
        render_regression(regression, lambda line: print(line, file=sys.stderr))
    if opens_tui(no_tui, stdin_tty=sys.stdin.isatty(), stdout_tty=sys.stdout.isatty()):
        from ctxscope.inspector.tui.launch import launch  # Textual loads only when the TUI opens

        launch([result.recording])
        print(f"recording: {result.recording}  (ctxscope inspect to open it again)", file=sys.stderr)
        return
    console = Console(highlight=False)
    # Paths are printed as plain text (a `[` in a path is not markup) and never wrapped, so the
    # commands below can be copied from a narrow terminal.
    heading = Text("\nWhat the model saw, turn by turn", style="bold")
    heading.append(f"  (recording: {result.recording})\n", style="")
    console.print(heading, soft_wrap=True)
    render_text(diff_report(analyse_recording(result.recording)), console)
    console.print("\nNext:")
    where = shlex.quote(str(result.recording))
    for command, comment in _next_steps(where, tour=tour):
        console.print(f"  {command}     # {comment}", markup=False, soft_wrap=True)


def _next_steps(where: str, *, tour: bool) -> tuple[tuple[str, str], ...]:
    if tour:
        return (
            (f"ctxscope inspect {where}", "browse every chapter in the TUI"),
            (f"ctxscope diff {where} --turn 4", "the cwd change in full"),
            (f"ctxscope replay {where} --match strict", "the regression check against your own client"),
        )
    return (
        (f"ctxscope show {where} --turn 1", "the full context of the first request"),
        (f"ctxscope diff {where} --turn 4", "the cwd change in full"),
        (f"ctxscope replay {where}", "serve it as a cassette"),
    )


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)

"""`ctxscope demo --tour`: every context mechanism in one offline run, then the prompt-regression check.

The plain demo shows the three things every session has (AGENTS.md, a skill, a cwd change). The tour
walks through all of them in one session of the harness against a shipped script cassette, one
chapter per mechanism: the initial context, a cwd change, a model switch, plan mode, a goal and a
compaction. Its recording is then used as a regression test, which is what the tour is for: the
first chapter is run again into a strict replay of the recording, unchanged (every request matches)
and with one line added to the base prompt (the replay rejects the first request and the tour prints
the context that changed, item by item). The same check in a test suite is the `ctxscope_cassette`
marker (docs/cassettes.md).

The regression runs need the workspace as it was when the tour started, at the same path, so the tour's
own workspace is moved aside while they run and put back afterwards.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ctxscope.demo_workspace import build_workspace  # the tour builds the same workspace as the demo
from ctxscope.harness.commands import is_command, run_command
from ctxscope.harness.config import DEFAULT_INSTRUCTIONS
from ctxscope.harness.events import AgentEvent, Compacted, TurnCompleted
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.tools.shell_env import without_user_profile
from ctxscope.inspector.analysis.request_diff import RequestDiff, diff_requests
from ctxscope.inspector.reports.context_diff import context_diff_lines
from ctxscope.proxy.errors import ConfigError, CtxscopeError
from ctxscope.proxy.replay import Mismatch, load_cassette, serve_cassette

__all__ = [
    "CHAPTERS",
    "TOUR_SCRIPT",
    "Chapter",
    "RegressionCheck",
    "TourResult",
    "render_regression",
    "run_tour",
]

TOUR_SCRIPT = resources.files("ctxscope") / "data" / "tour-script.json"
"""The offline model's answers for every chapter, shipped as package data."""

CHANGED_LINE = "Always mention the file you changed in the first sentence of your answer."
"""The line the regression check adds to the base prompt: a typical prompt-template edit."""

_CONFIG = """\
# Written by `ctxscope demo --tour`: the tour's own settings, so a user's config.toml cannot change it.
[providers.replay]
base_url = "http://127.0.0.1:9/v1"   # replaced by the replay's address when the check runs
"""


@dataclass(frozen=True)
class Chapter:
    """One mechanism: the prompts and slash commands that show it, and what to look at."""

    title: str
    watch: str
    """What changes in the requests, and where the inspector shows it."""
    steps: tuple[str, ...]


CHAPTERS: tuple[Chapter, ...] = (
    Chapter(
        "the initial context",
        "turn 1 carries the base prompt (input[0]), permissions, the skills catalog, AGENTS.md and the "
        "environment; the named skill is injected; tool calls append to input[]",
        ("Add a greet(name) helper in pkg/. Follow $demo-skill.",),
    ),
    Chapter(
        "a cwd change",
        "pkg/AGENTS.md replaces the root one, and permissions and the environment are sent again",
        ("/cd pkg", "Now add a test for it."),
    ),
    Chapter(
        "a model switch",
        "a <model_switch> message carries the new model's base prompt; the skills catalog is re-sent",
        ("/model gpt-5-mini", "Summarise what changed."),
    ),
    Chapter(
        "plan mode",
        "a <collaboration_mode> fragment switches to Plan (tools[] stays the same); the plan comes back "
        "in a <proposed_plan> block; approving it switches back and starts the implementation",
        ("/plan add a farewell(name) helper next to greet", "/plan approve 1"),
    ),
    Chapter(
        "a goal",
        "a goal status, the objective item and a continuation message per goal turn, until the model "
        "calls update_goal",
        ("/goal check that greet and farewell both answer",),
    ),
    Chapter(
        "a compaction",
        "the history is summarised into a new context window: summary, recent user messages, the "
        "current context again",
        ("/compact", "What is left to do?"),
    ),
)


@dataclass
class RegressionCheck:
    """The tour's first chapter replayed strictly, unchanged and with a changed base prompt."""

    unchanged_served: int
    """Requests the unchanged run had answered from the recording (all of them: the check passes)."""
    unchanged_problems: list[str]
    expected: int
    """Requests of the first chapter in the recording."""
    mismatch: Mismatch | None
    """The changed run's first rejected request (None would mean the change went unnoticed)."""
    recorded_body: dict[str, object] | None = None
    context: RequestDiff | None = None


@dataclass
class TourResult:
    workspace: Path
    recording: Path
    turns: list[tuple[Chapter, int]] = field(default_factory=list)
    """Each chapter with the number of model requests it made."""
    regression: RegressionCheck | None = None


def run_tour(
    root: Path,
    capture: Path,
    *,
    emit: Callable[[AgentEvent], None] | None = None,
    say: Callable[[str], None] = lambda text: print(text, file=sys.stderr),
) -> TourResult:
    """Run every chapter with capture into `capture`, then the regression check."""
    if not TOUR_SCRIPT.is_file():
        raise ConfigError("the tour script is missing from this installation of ctxscope: reinstall it")
    config = root / "tour-config.toml"
    repo, skills = build_workspace(root)
    config.write_text(_CONFIG)
    result = TourResult(workspace=repo, recording=capture)
    requests = [0]

    def count(event: AgentEvent) -> None:
        # A turn reports the model requests it made; a local compaction makes one more.
        if isinstance(event, TurnCompleted):
            requests[0] += event.steps
        elif isinstance(event, Compacted):
            requests[0] += 1
        if emit is not None:
            emit(event)

    with resources.as_file(TOUR_SCRIPT) as script:
        options = _options(root, repo, skills, config, provider="script", capture=capture)
        options.settings["script"] = script
        with AgentRuntime(options, emit=count) as runtime:
            for number, chapter in enumerate(CHAPTERS, 1):
                say(f"\n── chapter {number}: {chapter.title} ──\n   watch: {chapter.watch}")
                before = requests[0]
                for step in chapter.steps:
                    say(f"\n{'' if is_command(step) else 'user: '}{step}")
                    if is_command(step):
                        run_command(step, runtime, sys.stderr)
                    else:
                        assert runtime.agent is not None
                        runtime.agent.run_turn(step)
                result.turns.append((chapter, requests[0] - before))
    say("\n── the recording as a regression test ──")
    result.regression = _regression_check(root, repo, skills, config, capture, result.turns[0][1])
    return result


def _options(
    root: Path, repo: Path, skills: Path, config: Path, *, provider: str, capture: Path | None = None
) -> AgentOptions:
    return AgentOptions(
        provider=provider,
        cwd=repo,
        capture=capture,
        no_capture=capture is None,
        config_path=config,
        skill_dirs=[skills],
        sandbox="workspace-write",
        approval="never",
        sessions_dir=root / "sessions",
        command_env=without_user_profile(root / "shell-home"),  # the machine's profile is not the demo's
    )


def _regression_check(
    root: Path, repo: Path, skills: Path, config: Path, recording: Path, expected: int
) -> RegressionCheck:
    prompt = CHAPTERS[0].steps[0]
    changed = root / "base-instructions-changed.md"
    base = DEFAULT_INSTRUCTIONS.read_text(encoding="utf-8")
    changed.write_text(base.rstrip("\n") + f"\n\n{CHANGED_LINE}\n", encoding="utf-8")
    aside = root / f"{repo.name}.tour"
    repo.rename(aside)
    try:
        build_workspace(root)
        served, problems, _ = _replay_run(root, repo, skills, config, recording, prompt, None)
        shutil.rmtree(repo)
        build_workspace(root)
        _, _, mismatch = _replay_run(root, repo, skills, config, recording, prompt, changed)
    finally:
        shutil.rmtree(repo, ignore_errors=True)
        aside.rename(repo)
    check = RegressionCheck(served, problems, expected, mismatch)
    if mismatch is not None and isinstance(mismatch.live_body, dict):
        recorded = _recorded_body(recording, mismatch.index)
        if recorded is not None:
            check.recorded_body = recorded
            check.context = diff_requests(recorded, mismatch.live_body)
    return check


def _replay_run(
    root: Path,
    repo: Path,
    skills: Path,
    config: Path,
    recording: Path,
    prompt: str,
    instructions: Path | None,
) -> tuple[int, list[str], Mismatch | None]:
    """One run of `prompt` served strictly by `recording`: (requests served, problems, first mismatch)."""
    with serve_cassette(recording, match="strict") as server:
        options = _options(root, repo, skills, config, provider="replay")
        options.settings.update(base_url=f"{server.url}/v1", instructions_file=instructions)
        with AgentRuntime(options) as runtime:
            assert runtime.agent is not None
            try:
                runtime.agent.run_turn(prompt)
            except CtxscopeError:
                pass  # a rejected request ends the run; the replay's report says why
        report = server.report
    return report.served, report.problems(), report.mismatches[0] if report.mismatches else None


def _recorded_body(recording: Path, index: int) -> dict[str, object] | None:
    """The request body of the recording's `index`-th model entry (as the replay counts them)."""
    cassette = load_cassette(recording)
    entries = cassette.model_entries
    if not 0 <= index < len(entries):
        return None
    body = entries[index].request_body
    return body if isinstance(body, dict) else None


def render_regression(check: RegressionCheck, write: Callable[[str], None]) -> None:
    """The regression check as text: the verdicts, then what changed in the model's context."""
    verdict = (
        "passes" if check.unchanged_served == check.expected and not check.unchanged_problems else "FAILS"
    )
    write(
        f"  unchanged:         {check.unchanged_served} of {check.expected} requests of chapter 1 "
        f"matched a strict replay of the recording: the test {verdict}"
    )
    for problem in check.unchanged_problems:
        write(f"                     {problem}")
    if check.mismatch is None:
        write("  base prompt edited: not noticed (this is a bug: the replay should have rejected it)")
        return
    write(
        f"  base prompt edited: the replay rejected the request at the recording's "
        f"{check.mismatch.entry} (HTTP 400): the test FAILS with"
    )
    for difference in check.mismatch.differences:
        write(f"    {difference}")
    if check.context is None:
        return
    write("  what changed in the model's context:")
    for line in context_diff_lines(check.context):
        write(f"    {line}")

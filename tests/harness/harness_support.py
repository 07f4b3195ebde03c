"""Test helpers for the harness: a scratch repo, script cassettes, in-process runs, request checks,
and golden layout files (`CTXSCOPE_UPDATE_GOLDEN=1 pytest tests/harness` rewrites them)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ctxscope.harness.context import layout_labels
from ctxscope.harness.events import AgentEvent
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.proxy.model import Exchange
from ctxscope.proxy.store.reader import read_recording

GOLDEN_DIR = Path(__file__).parent / "golden"
UPDATE_ENV = "CTXSCOPE_UPDATE_GOLDEN"

# Pinned so layouts and request bodies do not depend on the machine or the day.
PINNED_CONTEXT: dict[str, Any] = {
    "now": datetime(2026, 11, 29, 12, 0, tzinfo=UTC),
    "timezone": "UTC",
    "shell": "bash",
}

SKILL_TEXT = (
    "---\nname: greet\ndescription: Greet the user by name\n---\nAlways greet the user warmly by name.\n"
)


def make_repo(root: Path) -> Path:
    """A git repo with a root AGENTS.md, a `pkg/` subdir with its own AGENTS.md, and a skill dir."""
    repo = root / "repo"
    (repo / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("Run the tests before you finish.\n", encoding="utf-8")
    (repo / "pkg" / "AGENTS.md").write_text("Package code uses tabs.\n", encoding="utf-8")
    (repo / "README.md").write_text("hello\n", encoding="utf-8")
    skill = root / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_TEXT, encoding="utf-8")
    return repo


def write_config(home: Path, skills: Path, extra: str = "") -> Path:
    """config.toml with the skill dir and a tiny backoff so retry tests take milliseconds."""
    path = home / "config.toml"
    path.write_text(
        f'model = "gpt-test"\nskill_dirs = ["{skills}"]\n{extra}\n'
        "[retry]\nmax_retries = 2\nbackoff_base = 0.001\nbackoff_max = 0.005\nidle_timeout = 20.0\n",
        encoding="utf-8",
    )
    return path


def write_script(path: Path, responses: list[Any], model: str = "gpt-test") -> Path:
    path.write_text(
        json.dumps({"format": "ctxscope-script", "version": 1, "model": model, "responses": responses}),
        encoding="utf-8",
    )
    return path


@dataclass
class Run:
    """The outcome of an in-process agent run."""

    capture: Path
    session_id: str
    session_file: Path
    events: list[AgentEvent]
    results: list[Any]

    def exchanges(self) -> list[Exchange]:
        return [e for e in read_recording(self.capture).exchanges if e.endpoint == "responses"]

    def bodies(self) -> list[dict[str, Any]]:
        return [e.request_body for e in self.exchanges()]


def run_agent(
    repo: Path,
    script: Path,
    prompts: list[str],
    capture: Path,
    *,
    session: str | None = None,
    commands: Callable[[AgentRuntime, int], None] | None = None,
    **options: Any,
) -> Run:
    """Run prompts in one session through the real proxy (script provider, capture on).

    `commands(runtime, i)` runs before prompt i (e.g. a model switch)."""
    events: list[AgentEvent] = []
    opts = AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=capture,
        session=session,
        context_overrides=dict(PINNED_CONTEXT),
        **options,
    )
    results = []
    with AgentRuntime(opts, emit=events.append) as runtime:
        assert runtime.agent is not None
        for i, prompt in enumerate(prompts):
            if commands:
                commands(runtime, i)
            results.append(runtime.agent.run_turn(prompt))
        agent = runtime.agent
    return Run(
        capture=capture,
        session_id=agent.session_id,
        session_file=agent.session.path,
        events=events,
        results=results,
    )


def labels(body: dict[str, Any], root: Path) -> list[str]:
    return layout_labels(body["input"], root=str(root))


def assert_golden(name: str, lines: list[str]) -> None:
    """Compare with tests/harness/golden/<name>.txt (rewritten when CTXSCOPE_UPDATE_GOLDEN=1)."""
    path = GOLDEN_DIR / f"{name}.txt"
    text = "\n".join(lines) + "\n"
    if os.environ.get(UPDATE_ENV) == "1":
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden {path.name}; run with {UPDATE_ENV}=1 to create it"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"layout differs from {path.name}:\n--- expected\n{expected}--- got\n{text}"


def assert_calls_paired(items: list[dict[str, Any]]) -> None:
    """Every call has exactly one output after it, and no output lacks its call."""
    calls = [i["call_id"] for i in items if i.get("type") in ("function_call", "custom_tool_call")]
    # A goal_objective item is an output with no call by design (Codex's form): not an orphan.
    outputs = [
        i["call_id"]
        for i in items
        if i.get("type") in ("function_call_output", "custom_tool_call_output")
        and i.get("name") != "goal_objective"
    ]
    assert len(calls) == len(set(calls)), f"duplicate call ids {calls}"
    assert sorted(calls) == sorted(outputs), f"calls {calls} vs outputs {outputs}"
    for cid in calls:
        call_at = next(n for n, i in enumerate(items) if i.get("call_id") == cid)
        out_at = next(
            n for n, i in enumerate(items) if i.get("call_id") == cid and i["type"].endswith("_output")
        )
        assert call_at < out_at, f"output of {cid} comes before its call"


def assert_append_only(bodies: list[dict[str, Any]]) -> None:
    """Request n's input is a prefix of request n+1's."""
    for n in range(len(bodies) - 1):
        a, b = bodies[n]["input"], bodies[n + 1]["input"]
        assert b[: len(a)] == a, f"request {n + 1} rewrote history of request {n}"

"""A project where ctxscope's agent ran a two-prompt session with capture on, and pytest run inside it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.proxy.errors import CtxscopeError
from tests.harness.harness_support import make_repo, write_script

__all__ = ["PROMPTS", "git", "project_pytest", "recorded_project", "session"]

PROMPTS = ("say hi", "now say bye")


def session(repo: Path, tmp: Path, **options: object) -> None:
    settings = AgentOptions(cwd=repo, sessions_dir=tmp / "sessions", approval="never", **options)  # type: ignore[arg-type]
    with AgentRuntime(settings) as runtime:
        assert runtime.agent is not None
        for prompt in PROMPTS:
            try:
                runtime.agent.run_turn(prompt)
            except CtxscopeError:
                return


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def project_pytest(
    project: Path, *args: str, env: dict[str, str] | None = None, python: str = sys.executable
) -> subprocess.CompletedProcess[str]:
    """pytest in the project, as its CI would run it (the installed ctxscope plugin loads by itself)."""
    environ = {k: v for k, v in os.environ.items() if k not in ("GITHUB_STEP_SUMMARY", "PYTEST_ADDOPTS")}
    return subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=project,
        env={**environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def recorded_project(tmp_path: Path) -> tuple[Path, Path]:
    """(the project, the recording of its agent session), the checkout committed and clean."""
    repo = make_repo(tmp_path)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "start")
    script = write_script(tmp_path / "s.json", [{"text": "hi"}, {"text": "bye"}])
    recording = tmp_path / "session.jsonl"
    session(repo, tmp_path, provider="script", script=script, capture=recording)
    return repo, recording

"""A project where ctxscope's agent ran a two-prompt session with capture on, and pytest run inside it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.proxy.errors import CtxscopeError
from tests.harness.harness_support import make_repo, write_script

__all__ = [
    "PROMPTS",
    "SDK_PROMPT",
    "fill_in_sdk_call",
    "git",
    "project_pytest",
    "recorded_project",
    "recorded_sdk_project",
    "session",
]

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


SDK_MODEL = "gpt-test"
SDK_PROMPT = "You are a careful assistant.\nAnswer in one short sentence.\nNever guess.\n"
"""prompt.md of the SDK project: the instructions its code sends (a line of it changes in the tests)."""


def recorded_sdk_project(tmp_path: Path) -> tuple[Path, Path]:
    """(a project whose code calls openai-python with instructions from prompt.md, its recording): one
    streamed answer, recorded by openai-python 2.x through the real recording proxy."""
    from openai import OpenAI

    from ctxscope.proxy.testing import FakeUpstream, SseReply, capture_proxy, response_stream, text_message

    project = tmp_path / "sdk-project"
    (project / "tests").mkdir(parents=True)
    (project / "prompt.md").write_text(SDK_PROMPT, encoding="utf-8")
    recording = tmp_path / "sdk.jsonl"
    with FakeUpstream() as upstream, capture_proxy(upstream.url, recording) as capture:
        upstream.reply(SseReply(response_stream(text_message("hello"), model=SDK_MODEL)))
        with OpenAI(base_url=capture.url + "/v1", api_key="x", max_retries=0) as client:
            events = list(client.responses.create(model=SDK_MODEL, instructions=SDK_PROMPT, input="hi", stream=True))
        assert events[-1].type == "response.completed"
        capture.wait_for(1)
    return project, recording


def fill_in_sdk_call(text: str, http: str = "httpx") -> str:
    """The promoted test with its client call filled in as its comments say: the `pytest.fail` line
    replaced by the project's openai-python call on the cassette's transport (`http`: httpx, or httpx2
    for openai 3.x)."""
    lines = text.splitlines()
    [fail] = [i for i, line in enumerate(lines) if line.startswith('    pytest.fail(f"promoted test: ')]
    call = [
        '    prompt = (Path(__file__).parents[1] / "prompt.md").read_text(encoding="utf-8")',
        '    client = openai.OpenAI(base_url=base_url, api_key="test", max_retries=0,',
        f"                           http_client={http}.Client(transport=ctxscope_cassette.transport))",
        f'    stream = client.responses.create(model="{SDK_MODEL}", instructions=prompt, input="hi", stream=True)',
        "    events = list(stream)",
        '    assert events[-1].type == "response.completed"',
    ]
    lines[fail : fail + 1] = call
    imports = lines.index("import pytest")
    lines[imports : imports + 1] = ["from pathlib import Path", "", f"import {http}", "import openai", "import pytest"]
    return "\n".join(lines) + "\n"

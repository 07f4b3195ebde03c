"""Harness parity with the real Codex CLI: the same scenario through the proxy, the same structure.

Codex CLI 0.171.0 (the newest release, `NEWEST`, installed with npm into the test cache; the suite
pins 0.169.0 elsewhere, docs/codex-versions.md says what changed between them) and the harness run the same turns
on the same workspace against the same local fake model, each captured by the recording proxy:

1. a first turn with a tool round trip (exec_command `echo hi`, then an answer);
2. a resume in `pkg/` (its own AGENTS.md) with a `$demo-skill` prompt;
3. a resume that switches the model to one the catalog does not know (gpt-5.4);
4. a resume back on gpt-5.5 with the sandbox changed to read-only.

Both recordings are analysed by the inspector, and request by request the labelled layouts
(`ctxscope show`), the body key sets, the request settings, the tools (names, types, parameter
names) and the metadata key sets must match, except for what
`ctxscope.inspector.analysis.structure.ALLOWED` lists and explains.
Skipped, saying why, where npm or the package cannot be had.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.structure import structural_differences
from ctxscope.proxy.testing import (
    FakeUpstream,
    SseReply,
    capture_proxy,
    function_call,
    response_stream,
    text_message,
)
from tests.cli_support import run_cli
from tests.proxy.replay.codex_support import NEWEST, codex_binary, run_codex

pytestmark = pytest.mark.slow

PROMPTS = ("please run echo", "now use $demo-skill here", "switched", "sandbox now")


def fake_model(request: Any) -> SseReply:
    """One model for both clients: run `echo hi` when asked, answer after a tool output, else `ok`."""
    items = request.json().get("input", [])
    if items and items[-1].get("type") == "function_call_output":
        return SseReply(response_stream(text_message("done")))
    if "please run echo" in json.dumps(items[-1:]):
        return SseReply(response_stream(function_call("exec_command", {"cmd": "echo hi"})))
    return SseReply(response_stream(text_message("ok")))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("Use pytest for tests.\n")
    (repo / "pkg" / "AGENTS.md").write_text("In pkg: keep functions small.\n")
    skill = tmp_path / "codex-home" / "skills" / "demo-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo-skill\ndescription: A demo skill.\n---\nSay DEMO.\n")
    return repo


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream(handler=fake_model) as up:
        yield up


def run_codex_scenario(binary: Path, tmp_path: Path, repo: Path, upstream: FakeUpstream) -> Path:
    home, user = tmp_path / "codex-home", tmp_path / "codex-user"
    user.mkdir()
    path = tmp_path / "codex.jsonl"
    with capture_proxy(upstream.url, path) as capture:
        (home / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "local"\nsandbox_mode = "workspace-write"\n'
            'approval_policy = "never"\n[model_providers.local]\nname = "local"\n'
            f'base_url = "{capture.url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_KEY"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
        )
        first = run_codex(binary, home, user, repo, PROMPTS[0])
        session = re.search(r"session id: (\S+)", first)
        assert session, first[-2000:]
        sid = session.group(1)
        run_codex(binary, home, user, repo / "pkg", "resume", sid, PROMPTS[1])
        run_codex(binary, home, user, repo / "pkg", "resume", sid, "-m", "gpt-5.4", PROMPTS[2])
        run_codex(
            binary, home, user, repo / "pkg", "resume", sid, "-c", 'sandbox_mode="read-only"', PROMPTS[3]
        )
        capture.wait_for(5)
    return path


def run_harness_scenario(
    tmp_path: Path, repo: Path, upstream: FakeUpstream, ctxscope_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    monkeypatch.setenv("LOCAL_KEY", "x")
    (ctxscope_home / "config.toml").write_text(
        'model = "gpt-5.5"\nprovider = "local"\napproval = "never"\nfile_tools = false\n'
        f'skill_dirs = ["{tmp_path / "codex-home" / "skills"}"]\n'
        f'[providers.local]\nbase_url = "{upstream.url}/v1"\nenv_key = "LOCAL_KEY"\n'
        "[retry]\nmax_retries = 0\n"
    )
    path = tmp_path / "harness.jsonl"

    def resume(cwd: Path, prompt: str, session: str | None, model: str | None = None, **options: Any) -> str:
        with AgentRuntime(AgentOptions(cwd=cwd, capture=path, session=session, **options)) as runtime:
            assert runtime.agent is not None
            runtime.agent.turn_trigger = "exec"  # headless, like `codex exec`
            if model is not None:
                runtime.agent.switch_model(model)
            runtime.agent.run_turn(prompt)
            return runtime.agent.session_id

    sid = resume(repo, PROMPTS[0], None)
    resume(repo / "pkg", PROMPTS[1], sid)
    resume(repo / "pkg", PROMPTS[2], sid, model="gpt-5.4")
    # `codex exec resume` goes back to the configured model; the sandbox changes with it.
    resume(repo / "pkg", PROMPTS[3], sid, model="gpt-5.5", sandbox="read-only")
    return path


def test_harness_and_codex_send_the_same_structure(
    tmp_path: Path,
    workspace: Path,
    upstream: FakeUpstream,
    ctxscope_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    binary = codex_binary(NEWEST)  # the parity follows the newest release
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=False).stdout
    print(f"\nCodex CLI under comparison: {version.strip()} (the newest, {NEWEST})")
    assert NEWEST in version

    codex_path = run_codex_scenario(binary, tmp_path, workspace, upstream)
    codex = analyse_recording(codex_path).turns
    harness_path = run_harness_scenario(tmp_path, workspace, upstream, ctxscope_home, monkeypatch)
    harness = analyse_recording(harness_path).turns
    assert len(codex) == len(harness) == 5, (len(codex), len(harness))

    def clean(label: str) -> str:
        return label.replace(str(workspace.resolve()), "$ROOT").replace(str(workspace), "$ROOT")

    # One definition of "same structure" (ctxscope.inspector.analysis.structure.ALLOWED), shared with compare.
    problems = [
        f"request {number} {line}"
        for number, (h, c) in enumerate(zip(harness, codex, strict=True), start=1)
        for line in structural_differences(h, c, clean, clean)
    ]
    assert not problems, "\n".join(problems)

    # `ctxscope compare harness.jsonl codex.jsonl` says the same, turn by turn.
    result = run_cli("compare", str(harness_path), str(codex_path))
    assert result.returncode == 0, result.stderr
    for number in range(1, 6):
        assert f"turn {number}: same structure" in result.stdout, result.stdout
    assert "structure differs" not in result.stdout, result.stdout

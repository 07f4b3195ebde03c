"""`replay_agent`: run ctxscope's own agent headless against a cassette fixture, as a promoted test does.

    @pytest.mark.ctxscope_cassette("cassettes/fix-turn2.jsonl", in_process=True, past_end="allow")
    def test_fix_turn2(ctxscope_cassette, tmp_path):
        replay_agent(ctxscope_cassette, PROJECT, tmp_path, ["fix the failing test"])

The agent runs in a copy of the project (a workspace under `tmp_path`, so the tools the recorded
answers call act on the copy) with the settings the recording's first turn shows: model, sandbox,
approval policy, shell and, when there was one, the global AGENTS.md text. Everything else comes from
the project as it is now: its AGENTS.md files, its tree. Its requests go to the fixture's
`CassetteTransport` (no proxy, no network, nothing captured); the first refused request stops the
agent and fails the test with what changed in the model's context (`CassetteFixture.check`).

It joins the harness and the cassette plugin, so it lives here, in the package on top of both.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ctxscope.proxy.errors import ConfigError, CtxscopeError
from ctxscope.proxy.pytest_plugin import CassetteFixture
from ctxscope.proxy.responses.vocabulary import CodexHeader

__all__ = [
    "WORKSPACE_IGNORE",
    "codex_settings",
    "prepare_workspace",
    "recorded_settings",
    "replay_agent",
    "replay_codex",
]

WORKSPACE_IGNORE = (
    ".git",
    ".hg",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    "*.egg-info",
)
"""Left out of the workspace copy: version-control state (the git probe is client bookkeeping, which a
replay does not compare), environments and caches."""


def recorded_settings(cassette: Path) -> dict[str, Any]:
    """What the agent must be given to build the recorded first request again: `model`, `sandbox`,
    `approval`, `shell`, `announce_mode` and `global_agents` (the global AGENTS.md text, or None)."""
    from ctxscope.inspector.analysis.analyse import analyse_recording

    analysis = analyse_recording(cassette)
    state = analysis.turn(1).state
    meta = analysis.header.meta if analysis.header is not None else {}
    cwd = str(state.value("cwd") or meta.get("cwd") or "")
    agents = state.value("agents_md") or {}
    # AGENTS.md files outside the recorded checkout are the user's global one (~/.ctxscope/AGENTS.md)
    outside = [text for path, text in agents.items() if cwd and not (path + "/").startswith(cwd + "/")]
    return {
        "model": state.value("model"),
        "sandbox": state.value("sandbox_mode"),
        "approval": state.value("approval_policy"),
        "shell": state.value("shell"),
        "announce_mode": state.value("collaboration_mode") is not None,
        "global_agents": outside[0] if outside else None,
    }


def prepare_workspace(project: Path, workspace: Path, files: Mapping[str, str] | None = None) -> Path:
    """A copy of `project` at `workspace` (without `WORKSPACE_IGNORE`), with `files` written over it.

    Given, `files` (path relative to the workspace → text) are its only AGENTS.md files: the ones a
    promoted test carries from the recorded workspace, so that a project's own cannot change the context."""
    shutil.copytree(project, workspace, ignore=shutil.ignore_patterns(*WORKSPACE_IGNORE), symlinks=True)
    if files is not None:
        for found in workspace.rglob("AGENTS.md"):
            found.unlink()
        for relative, text in files.items():
            target = workspace / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    return workspace


def replay_agent(
    cassette: CassetteFixture,
    project: Path,
    tmp_path: Path,
    prompts: Sequence[str],
    files: Mapping[str, str] | None = None,
) -> Path:
    """Run the agent on `prompts` in a copy of `project` against `cassette`; return the workspace.

    `files` (path relative to the workspace → text) are written over the copy: the AGENTS.md files a
    promoted test carries from the recorded workspace, so it passes from any project. Given, they are
    the workspace's only AGENTS.md files (a project's own would change the context).

    Stops at the cassette's end (the marker's `past_end="allow"` lets the client go on, answered 410)
    or at the first refused request, which fails the test with the context diff. The agent gets a
    `config.toml` of its own (the user's would make the test depend on the machine it runs on)."""
    transport = cassette.transport
    if transport is None:
        raise ConfigError("replay_agent needs an in-process cassette: add in_process=True to the marker")
    workspace = prepare_workspace(project, tmp_path / (project.name or "workspace"), files)
    settings = recorded_settings(cassette.path)
    overrides: dict[str, Any] = {"global_agents_file": None}
    if settings["shell"]:
        overrides["shell"] = settings["shell"]
    if settings["global_agents"] is not None:
        home_agents = tmp_path / "ctxscope-home" / "AGENTS.md"
        home_agents.parent.mkdir(parents=True, exist_ok=True)
        home_agents.write_text(settings["global_agents"], encoding="utf-8")
        overrides["global_agents_file"] = home_agents
    _run(cassette, workspace, tmp_path, prompts, settings, overrides)
    return workspace


def _run(
    cassette: CassetteFixture,
    workspace: Path,
    tmp_path: Path,
    prompts: Sequence[str],
    settings: dict[str, Any],
    overrides: dict[str, Any],
) -> None:
    from ctxscope.harness.runtime import AgentOptions, AgentRuntime

    # a provider with no key: the transport answers, nothing leaves the process
    config = tmp_path / "ctxscope-config.toml"
    config.write_text(f'[providers.cassette]\nbase_url = "{cassette.url}/v1"\n', encoding="utf-8")
    options = AgentOptions(
        provider="cassette",
        model=settings["model"],
        sandbox=settings["sandbox"],
        approval=settings["approval"],
        cwd=workspace,
        config_path=config,
        sessions_dir=tmp_path / "sessions",
        announce_mode=settings["announce_mode"],
        context_overrides=overrides,
        transport=cassette.transport,
    )
    with AgentRuntime(options) as runtime:
        assert runtime.agent is not None
        for prompt in prompts:
            try:
                runtime.agent.run_turn(prompt)
            except CtxscopeError:
                break  # a refused request, or past the cassette's end (the promoted turns were all sent)
            report = cassette.report
            if report is not None and report.remaining == 0:
                break
    cassette.check()  # here, not in the except: the failure is what changed, not the agent's error


CODEX_RUN_TIMEOUT_S = 300


def codex_settings(cassette: Path) -> dict[str, Any]:
    """What a Codex run must be configured with to send the recorded first request again: `model`,
    `reasoning_effort`, `sandbox`, `approval`, `version`, and `provider`: `builtin` (the recording went
    over the WebSocket, or carries the built-in provider's per-item metadata) or `custom`."""
    from ctxscope.proxy.store.reader import read_recording

    model = [e for e in read_recording(cassette).exchanges if e.is_model_request]
    bodies = [e.request_body for e in model if isinstance(e.request_body, dict)]
    first = next((b for b in bodies if "input" in b), {})
    meta_text = (first.get("client_metadata") or {}).get(CodexHeader.TURN_METADATA.value) or "{}"
    try:
        meta = json.loads(meta_text) if isinstance(meta_text, str) else {}
    except ValueError:
        meta = {}
    text = json.dumps(first.get("input", []))
    approval = re.search(r"Approval policy is currently ([\w-]+)", text)
    builtin = any(e.endpoint == "websocket" for e in model) or "internal_chat_message_metadata_passthrough" in text
    agents = [str((e.request_headers or {}).get("user-agent", "")) for e in model]
    version = next((m.group(1) for a in agents if (m := re.search(r"codex[\w-]*/(\d+\.\d+\.\d+)", a))), None)
    return {
        "model": first.get("model") or meta.get("model"),
        "reasoning_effort": (first.get("reasoning") or {}).get("effort") or meta.get("reasoning_effort"),
        "sandbox": meta.get("sandbox_mode"),
        "approval": approval.group(1) if approval else "never",
        "provider": "builtin" if builtin else "custom",
        "version": version,
    }


def replay_codex(
    cassette: CassetteFixture,
    project: Path,
    tmp_path: Path,
    prompts: Sequence[str],
    settings: Mapping[str, Any],
    files: Mapping[str, str] | None = None,
    codex: str = "codex",
    workspace_name: str = "workspace",
) -> Path:
    """Run the real Codex (`codex exec`, then `codex exec resume --last` for each later prompt) in a
    copy of `project` against `cassette`'s replay server; return the workspace.

    Codex gets a CODEX_HOME and a HOME of its own under `tmp_path` (the user's config, login and shell
    profile stay out), with `openai_base_url` (built-in provider) or a custom provider pointing at the
    replayer. A request the cassette refuses ends Codex's run; the marker's verdict then fails the test
    with what changed in the model's context."""
    import subprocess

    if cassette.server is None:
        raise ConfigError("replay_codex needs the replay server: leave in_process=True out of the marker")
    # the checkout in a folder of its own: CODEX_HOME (its skills) beside it, not under it, as a person has it
    workspace = prepare_workspace(project, tmp_path / "checkout" / workspace_name, files)
    home, user = tmp_path / "codex-home", tmp_path / "codex-user"
    home.mkdir()
    user.mkdir()
    (home / "config.toml").write_text(_codex_config(settings, f"{cassette.url}/v1"), encoding="utf-8")
    keys = {"CODEX_API_KEY": "sk-cassette", "CASSETTE_KEY": "x"}  # Codex wants one; the replayer reads none
    env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(user), **keys}
    for name in ("OPENAI_BASE_URL", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        env.pop(name, None)
    for number, prompt in enumerate(prompts):
        resume = ["resume", "--last"] if number else []
        done = subprocess.run(
            [codex, "exec", "--skip-git-repo-check", *resume, prompt],
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CODEX_RUN_TIMEOUT_S,
            check=False,
        )
        report = cassette.report
        if done.returncode != 0:
            if report is not None and (report.mismatches or report.exhausted):
                break  # the verdict names what changed
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise ConfigError(f"codex exec failed (exit {done.returncode}): {tail}")
        if report is not None and report.remaining == 0:
            break
    cassette.check()
    return workspace


def _codex_config(settings: Mapping[str, Any], base_url: str) -> str:
    lines = [f"model = {json.dumps(settings.get('model') or 'gpt-5.5')}"]
    if settings.get("reasoning_effort"):
        lines.append(f"model_reasoning_effort = {json.dumps(settings['reasoning_effort'])}")
    if settings.get("sandbox"):
        lines.append(f"sandbox_mode = {json.dumps(settings['sandbox'])}")
    lines.append(f"approval_policy = {json.dumps(settings.get('approval') or 'never')}")
    if settings.get("provider") == "builtin":
        lines.append(f"openai_base_url = {json.dumps(base_url)}")
    else:
        lines += [
            'model_provider = "cassette"',
            "[model_providers.cassette]",
            'name = "cassette"',
            f"base_url = {json.dumps(base_url)}",
            'wire_api = "responses"',
            'env_key = "CASSETTE_KEY"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
        ]
    return "\n".join(lines) + "\n"

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

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxscope.proxy.errors import ConfigError, CtxscopeError
from ctxscope.proxy.pytest_plugin import CassetteFixture

__all__ = ["WORKSPACE_IGNORE", "recorded_settings", "replay_agent"]

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


def replay_agent(
    cassette: CassetteFixture,
    project: Path,
    tmp_path: Path,
    prompts: Sequence[str],
) -> Path:
    """Run the agent on `prompts` in a copy of `project` against `cassette`; return the workspace.

    Stops at the cassette's end (the marker's `past_end="allow"` lets the client go on, answered 410)
    or at the first refused request, which fails the test with the context diff. The agent gets a
    `config.toml` of its own (the user's would make the test depend on the machine it runs on)."""
    transport = cassette.transport
    if transport is None:
        raise ConfigError("replay_agent needs an in-process cassette: add in_process=True to the marker")
    workspace = tmp_path / (project.name or "workspace")
    shutil.copytree(project, workspace, ignore=shutil.ignore_patterns(*WORKSPACE_IGNORE), symlinks=True)
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

"""Harness parity with the real Codex CLI: the same scenario through the proxy, the same structure.

Codex CLI 0.169.0 (pinned, installed with npm into the test cache) and the harness run the same turns
on the same workspace against the same local fake model, each captured by the recording proxy:

1. a first turn with a tool round trip (exec_command `echo hi`, then an answer);
2. a resume in `pkg/` (its own AGENTS.md) with a `$demo-skill` prompt;
3. a resume that switches the model to one the catalog does not know (gpt-5.4);
4. a resume back on gpt-5.5 with the sandbox changed to read-only.

Both recordings are analysed by the inspector, and request by request the labelled layouts
(`ctxscope show`), the body key sets, the request settings, the tools (names, types, parameter
names) and the metadata key sets must match, except for what `ALLOWED` lists and explains.
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

from harness.runtime import AgentOptions, AgentRuntime
from inspector.analysis import analyse_recording
from inspector.analysis.analyse import TurnAnalysis
from proxy.testing import FakeUpstream, SseReply, capture_proxy, function_call, response_stream, text_message
from tests.proxy.replay.codex_support import CODEX_VERSION, codex_binary, run_codex

pytestmark = pytest.mark.slow

PROMPTS = ("please run echo", "now use $demo-skill here", "switched", "sandbox now")

# What may differ, and why. Everything else must be identical request by request.
ALLOWED = {
    # Codex tells the model about its deferred tool namespaces (multi_agent_v1, reachable through
    # tool_search); the harness has no deferred namespaces, so it sends no <tools> notice.
    "layout_parts": re.compile(r"<tools(:removed)?>"),
    # Codex's model-switch sentence does not name the models, so its label carries no model name.
    "model_switch_label": re.compile(r"<model_switch:[^>]+>"),
    # Tools Codex has and the harness does not (goals, hosted/deferred search, sub-agents).
    "tools_only_codex": {
        "get_goal",
        "create_goal",
        "update_goal",
        "tool_search",
        "web_search",
        "multi_agent_v1",
    },
    # ctxscope's own tools: the plan checklist and the file tools (read_file/list_dir/grep_files are
    # switched off below with file_tools = false, the Codex profile).
    "tools_only_harness": {"update_plan"},
    # Codex drops apply_patch for a model its catalog does not know; the harness keeps offering it.
    "tools_only_harness_unknown_model": {"apply_patch"},
}


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


def layout(turn: TurnAnalysis, root: Path) -> list[str]:
    """The labelled layout with paths under `root` as $ROOT and the allowed parts left out."""
    out = []
    for item in turn.turn.items:
        if item.parts and item.type == "message":
            parts = [
                f"<{p.label}>" if p.is_fragment else "text"
                for p in item.parts
                if not (p.is_fragment and ALLOWED["layout_parts"].fullmatch(f"<{p.label}>"))
            ]
            if not parts:
                continue
            label = f"{item.role}[{', '.join(parts)}]"
            if parts == ["text"]:
                label = f"{item.role}: text"
        else:
            label = item.label.split(" ", 1)[0] if item.type.endswith("_output") else item.label
            label = re.sub(r" \".*\"$", "", label)
        label = ALLOWED["model_switch_label"].sub("<model_switch>", label)
        out.append(label.replace(str(root.resolve()), "$ROOT").replace(str(root), "$ROOT"))
    return out


def tool_shapes(body: dict[str, Any]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """name → (type, parameter names) of every tool (namespaces and hosted tools by type)."""
    shapes = {}
    for tool in body.get("tools") or []:
        name = str(tool.get("name") or tool.get("type"))
        params = tuple(sorted((tool.get("parameters") or {}).get("properties") or {}))
        shapes[name] = (str(tool.get("type")), params)
    return shapes


def metadata_keys(body: dict[str, Any]) -> tuple[set[str], set[str]]:
    meta = body.get("client_metadata") or {}
    return set(meta), set(json.loads(meta.get("x-codex-turn-metadata") or "{}"))


def test_harness_and_codex_send_the_same_structure(
    tmp_path: Path,
    workspace: Path,
    upstream: FakeUpstream,
    ctxscope_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    binary = codex_binary()
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=False).stdout
    print(f"\nCodex CLI under comparison: {version.strip()} (pinned {CODEX_VERSION})")
    assert CODEX_VERSION in version

    codex = analyse_recording(run_codex_scenario(binary, tmp_path, workspace, upstream)).turns
    harness = analyse_recording(
        run_harness_scenario(tmp_path, workspace, upstream, ctxscope_home, monkeypatch)
    ).turns
    assert len(codex) == len(harness) == 5, (len(codex), len(harness))

    problems: list[str] = []
    for number, (c, h) in enumerate(zip(codex, harness, strict=True), start=1):
        cb, hb = c.turn.body, h.turn.body
        cl, hl = layout(c, workspace), layout(h, workspace)
        if cl != hl:
            problems.append(f"request {number} layout:\n  codex   {cl}\n  harness {hl}")
        if set(cb) != set(hb):
            problems.append(f"request {number} body keys: codex {sorted(cb)} harness {sorted(hb)}")
        for key in ("reasoning", "text", "parallel_tool_calls", "tool_choice", "store", "stream", "include"):
            if cb.get(key) != hb.get(key):
                problems.append(f"request {number} {key}: codex {cb.get(key)!r} harness {hb.get(key)!r}")
        if metadata_keys(cb) != metadata_keys(hb):
            problems.append(
                f"request {number} metadata keys: codex {metadata_keys(cb)} harness {metadata_keys(hb)}"
            )
        ct, ht = tool_shapes(cb), tool_shapes(hb)
        only_codex = set(ct) - set(ht) - ALLOWED["tools_only_codex"]
        only_harness = set(ht) - set(ct) - ALLOWED["tools_only_harness"]
        if cb.get("model") == "gpt-5.4":
            only_harness -= ALLOWED["tools_only_harness_unknown_model"]
        if only_codex or only_harness:
            problems.append(f"request {number} tools: only codex {only_codex}, only harness {only_harness}")
        for name in set(ct) & set(ht):
            if ct[name] != ht[name]:
                problems.append(f"request {number} tool {name}: codex {ct[name]} harness {ht[name]}")
    assert not problems, "\n".join(problems)

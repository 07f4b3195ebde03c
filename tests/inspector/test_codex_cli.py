"""The real Codex CLI through the proxy against a local upstream (codex-wire.md §9).

The CLI (pinned in `tests/proxy/replay/codex_support.py`) is installed once with npm into a cache
outside the repository (`CTXSCOPE_TEST_CACHE`, default `~/.cache/ctxscope-tests`); without npm or
the package the test is skipped, saying why.
One session: a first run in /repo that calls a tool and compacts, then `codex exec resume` in
/repo/pkg (its own AGENTS.md) with a skill named in the prompt, which compacts again.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from inspector.analysis import analyse_recording
from inspector.reports import describe_changes
from proxy.testing import (
    CaptureSession,
    FakeUpstream,
    SseReply,
    function_call,
    response_stream,
    text_message,
    usage,
)
from tests.proxy.replay.codex_support import CODEX_VERSION, codex_binary

pytestmark = pytest.mark.slow

RUN_TIMEOUT_S = 120
SUMMARY = "SUMMARY: the user asked to say hi; we ran echo."


def model(request: object) -> SseReply:
    """The fake model: call a tool (reporting a huge context, so Codex compacts), then finish."""
    body = request.json()  # type: ignore[attr-defined]
    items = body.get("input", [])
    meta = request.headers.get("x-codex-turn-metadata", "")  # type: ignore[attr-defined]
    if '"compaction"' in meta:
        return SseReply(response_stream(text_message(SUMMARY)))
    if (items and items[-1].get("type") == "function_call_output") or SUMMARY in json.dumps(items[-3:]):
        return SseReply(response_stream(text_message("done")))
    return SseReply(
        response_stream(
            function_call("exec_command", {"cmd": "echo hi"}),
            usage=usage(input_tokens=300_000, output_tokens=10),
        )
    )


def run_codex(binary: Path, home: Path, cwd: Path, *args: str) -> str:
    """One `codex exec` in its own process group, stdin /dev/null, killed as a group on timeout."""
    env = {**os.environ, "CODEX_HOME": str(home), "LOCAL_KEY": "x"}
    proc = subprocess.Popen(
        [str(binary), "exec", "--skip-git-repo-check", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"codex exec {' '.join(args)} did not finish in {RUN_TIMEOUT_S} s")
    assert proc.returncode == 0, err[-2000:]
    return out + err


@pytest.fixture
def upstream() -> FakeUpstream:  # type: ignore[misc]
    """The conftest's upstream, answering as the fake model above."""
    with FakeUpstream(handler=model) as up:
        yield up  # type: ignore[misc]


def test_codex_cli_session_is_explained(capture: CaptureSession, tmp_path: Path) -> None:
    binary = codex_binary()  # pinned: @openai/codex@CODEX_VERSION
    print(f"\nCodex CLI {CODEX_VERSION} ({binary})")
    home, repo = tmp_path / "codex-home", tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("Use pytest for tests.\n")
    (repo / "pkg" / "AGENTS.md").write_text("In pkg: keep functions small.\n")
    skill = home / "skills" / "demo-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo-skill\ndescription: A demo skill.\n---\nSay DEMO.\n")
    (home / "config.toml").write_text(
        'model = "gpt-5-codex"\nmodel_provider = "local"\nmodel_auto_compact_token_limit = 2000\n'
        "[model_providers.local]\n"
        'name = "local"\n'
        f'base_url = "{capture.url}/v1"\n'
        'wire_api = "responses"\nenv_key = "LOCAL_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n'
    )

    first = run_codex(binary, home, repo, "say hi")
    session = re.search(r"session id: (\S+)", first)
    assert session, first[-2000:]
    run_codex(binary, home, repo / "pkg", "resume", session.group(1), "now use $demo-skill here")
    capture.wait_for(6)
    capture.server.stop()
    capture.writer.close()

    analysis = analyse_recording(capture.path)
    turns = analysis.turns
    # The first request classifies completely: no unknown item, no unknown part.
    opening = turns[0].turn.items
    assert all(i.kind != "unknown" and all(p.kind != "unknown_part" for p in i.parts) for i in opening)
    fragment_kinds = [p.kind for i in opening for p in i.fragments]
    assert {"permissions", "skills_catalog", "agents_md", "environment_context"} <= set(fragment_kinds)
    coverage = Counter(i.kind for t in turns for i in t.turn.items)
    assert "unknown" not in coverage, coverage
    print(f"\nCodex CLI coverage over {len(turns)} requests: {dict(coverage)}")

    kinds = [t.change.kind for t in turns]
    assert kinds.count("compaction") == 2, kinds
    assert len(analysis.threads) == 1 and analysis.threads[0].hint == session.group(1)
    told = [describe_changes(t.state_changes) for t in turns]
    resumed = next(said for said in told if any("AGENTS.md replaced" in s for s in said))
    assert f"cwd {repo} → {repo / 'pkg'}" in resumed
    assert f"AGENTS.md replaced: {repo} → {repo / 'pkg'}" in resumed
    assert "skill demo-skill selected" in resumed
    sentences = [t.compaction.sentence for t in turns if t.compaction]
    assert all(s.startswith("compaction (request_kind compaction): ") for s in sentences)
    assert "context re-materialised" in sentences[1]
    requests = [t for t in turns if t.turn.request_kind == "compaction"]
    assert len(requests) == 2 and all(r.tools.empty for r in requests)

"""The real Codex CLI through the proxy against a local upstream (codex-wire.md §9).

The CLI (pinned in `tests/proxy/replay/codex_support.py`) is installed once with npm into a cache
outside the repository (`CTXSCOPE_TEST_CACHE`, default `~/.cache/ctxscope-tests`); without npm or
the package the test is skipped, saying why.
One session: a first run in /repo that calls a tool and compacts, then `codex exec resume` in
/repo/pkg (its own AGENTS.md) with a skill named in the prompt, which compacts again.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from ctxscope.inspector.reports import describe_changes
from ctxscope.proxy.testing import (
    CaptureSession,
    FakeUpstream,
    SseReply,
    function_call,
    response_stream,
    text_message,
    usage,
)
from tests.inspector.one_account import assert_one_account
from tests.proxy.replay.codex_support import CODEX_VERSION, codex_binary, run_codex, write_config

pytestmark = pytest.mark.slow

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
    write_config(home, capture.url, extra="model_auto_compact_token_limit = 2000\n")
    user = tmp_path / "user"  # a HOME of its own: Codex's login shells must not source the user's profile
    user.mkdir()

    first = run_codex(binary, home, user, repo, "say hi")
    session = re.search(r"session id: (\S+)", first)
    assert session, first[-2000:]
    run_codex(binary, home, user, repo / "pkg", "resume", session.group(1), "now use $demo-skill here")
    capture.wait_for(6)
    capture.server.stop()
    capture.writer.close()

    analysis = assert_one_account(capture.path)
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

"""A real multi-turn Codex session recorded in one checkout replays strictly into Codex in another.

Recorded: `codex exec "say hi"` in `a/w/repo` (a tool call, then a compaction), then `codex exec resume`
in `a/w/repo/pkg` (its own AGENTS.md) with a skill from `$CODEX_HOME/skills`, which compacts again.
Replayed: the same two commands in `b/w-second/repo`, with another CODEX_HOME (`b/other-home`, beside
the checkout, not under it) and another HOME, and the replayer started in a directory that is neither.
No `--ignore`: the checkout root, CODEX_HOME and each request's cwd are learned from the requests.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from proxy.replay import load_cassette, serve_cassette
from proxy.testing import (
    FakeUpstream,
    RecordedRequest,
    SseReply,
    capture_proxy,
    function_call,
    response_stream,
    text_message,
    usage,
)
from tests.proxy.replay.codex_support import codex_binary, run_codex, write_config

pytestmark = pytest.mark.slow

SUMMARY = "SUMMARY: the user asked to say hi; we ran pwd."


def model(request: RecordedRequest) -> SseReply:
    """Run `pwd` (reporting a huge context, so Codex compacts), summarise when asked, then finish."""
    body = request.json()
    items = body.get("input", [])
    if '"compaction"' in request.headers.get("x-codex-turn-metadata", ""):
        return SseReply(response_stream(text_message(SUMMARY)))
    if (items and items[-1].get("type") == "function_call_output") or SUMMARY in json.dumps(items[-3:]):
        return SseReply(response_stream(text_message("done")))
    call = function_call("exec_command", {"cmd": "pwd"})
    return SseReply(response_stream(call, usage=usage(input_tokens=300_000, output_tokens=10)))


def session(binary: Path, checkout: Path, home: Path, user: Path, base_url: str) -> str:
    """The two-command session in `checkout`; the second command's output."""
    (checkout / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    (checkout / "AGENTS.md").write_text("Use pytest for tests.\n")
    (checkout / "pkg" / "AGENTS.md").write_text("In pkg: keep functions small.\n")
    skill = home / "skills" / "demo-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo-skill\ndescription: A demo skill.\n---\nSay DEMO.\n")
    write_config(home, base_url, extra="model_auto_compact_token_limit = 2000\n")
    user.mkdir(parents=True)
    first = run_codex(binary, home, user, checkout, "say hi")
    found = re.search(r"session id: (\S+)", first)
    assert found, first[-2000:]
    return run_codex(binary, home, user, checkout / "pkg", "resume", found.group(1), "now use $demo-skill")


def test_codex_session_replays_strictly_from_another_checkout_and_codex_home(tmp_path: Path) -> None:
    binary = codex_binary()
    capture = tmp_path / "codex.jsonl"
    a, b = tmp_path / "a", tmp_path / "b"
    with FakeUpstream(handler=model) as upstream, capture_proxy(upstream.url, capture) as cap:
        session(binary, a / "w" / "repo", a / "codex-home", a / "user", cap.url)
    entries = load_cassette(capture).model_entries
    recorded = json.dumps([e.request_body for e in entries])
    assert len(entries) == 6 and str(a / "codex-home" / "skills") in recorded and str(a / "w") in recorded

    elsewhere = tmp_path / "launched-here"  # the replayer's own cwd says nothing about the client's
    elsewhere.mkdir()
    with serve_cassette(capture, match="strict", live_cwd=str(elsewhere)) as server:
        said = session(binary, b / "w-second" / "repo", b / "other-home", b / "person", server.url)
        report = server.report
    assert report.problems() == [], report.problems()
    assert report.served == 6 and report.remaining == 0
    assert "done" in said

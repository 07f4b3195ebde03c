"""A real multi-command Codex session recorded in one checkout replays strictly into Codex in another.

Recorded in `a/w/repo` with CODEX_HOME `a/codex-home` (beside the checkout, not under it), 9 requests:

1. `codex exec "write notes"` (repo): `exec_command pwd` (reporting a huge context, so Codex compacts
   mid-turn: the first compaction), then `apply_patch` adding `<checkout>/notes.txt` by absolute path.
2. `codex exec resume -c model_reasoning_effort="high" ID "now use $demo-skill"` (repo/pkg, its own
   AGENTS.md): a reasoning change; the skill from `$CODEX_HOME/skills` is injected; `apply_patch`
   updates `<checkout>/notes.txt` by absolute path; the reply reports a huge context.
3. `codex exec resume -m gpt-5.4 ID "finish up"` (repo/pkg): a model switch (`<model_switch>`); Codex
   compacts before the turn (the second compaction, whose summary replaces the first);
   `exec_command cat ../notes.txt`.

Replayed: the same three commands in `b/w-second/repo`, with another CODEX_HOME and HOME, the replayer
started in a directory that is neither, and the recorded tree deleted first (so a tool call that still
named a recorded path would show). No `--ignore`: the checkout root, CODEX_HOME and each request's cwd
are learned from the requests, and recorded paths in the served answers are written as live ones.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxscope.proxy.replay import load_cassette, serve_cassette
from ctxscope.proxy.testing import (
    FakeUpstream,
    JsonReply,
    RecordedRequest,
    Reply,
    SseReply,
    capture_proxy,
    custom_tool_call,
    function_call,
    response_stream,
    text_message,
    usage,
)
from tests.proxy.replay.codex_support import CodexRun, codex_binary, exec_codex, write_config

pytestmark = pytest.mark.slow

HUGE = usage(input_tokens=300_000, output_tokens=10)  # over model_auto_compact_token_limit: compact
SWITCHED_MODEL = "gpt-5.4"  # not in Codex 0.169's catalog: fallback metadata, still a model switch
FINAL = "all finished: notes.txt says hello and goodbye"
Event = dict[str, Any]


def _cwd(body: dict[str, Any]) -> Path:
    """The request's current working directory (its last environment_context `<cwd>`)."""
    found = re.findall(r"<cwd>([^<]+)</cwd>", json.dumps(body["input"]))
    return Path(found[-1])


def _add_notes(body: dict[str, Any]) -> list[Event]:
    patch = f"*** Begin Patch\n*** Add File: {_cwd(body) / 'notes.txt'}\n+hello\n*** End Patch\n"
    return custom_tool_call("apply_patch", patch)


def _update_notes(body: dict[str, Any]) -> list[Event]:
    notes = _cwd(body).parent / "notes.txt"  # the command runs in repo/pkg
    patch = f"*** Begin Patch\n*** Update File: {notes}\n@@\n hello\n+goodbye\n*** End Patch\n"
    return custom_tool_call("apply_patch", patch)


# (request kind Codex sends, the model's answer to it, the usage it reports), in the order of the session.
STEPS: list[tuple[str, Callable[[dict[str, Any]], list[Event]], dict[str, Any] | None]] = [
    # 1. codex exec "write notes" (repo)
    ("turn", lambda b: function_call("exec_command", {"cmd": "pwd"}), HUGE),
    ("compaction", lambda b: text_message("SUMMARY 1: the user wants notes; we ran pwd."), None),
    ("turn", _add_notes, None),
    ("turn", lambda b: text_message("wrote notes.txt"), None),
    # 2. codex exec resume -c model_reasoning_effort="high" ID "now use $demo-skill" (repo/pkg)
    ("turn", _update_notes, None),
    ("turn", lambda b: text_message("DEMO: notes updated"), HUGE),
    # 3. codex exec resume -m gpt-5.4 ID "finish up" (repo/pkg): compacts before the turn
    ("compaction", lambda b: text_message("SUMMARY 2: notes written and updated with the skill."), None),
    ("turn", lambda b: function_call("exec_command", {"cmd": "cat ../notes.txt"}), None),
    ("turn", lambda b: text_message(FINAL), None),
]


class ScriptedModel:
    """Answers the session's requests in order, refusing (HTTP 400) one of an unexpected kind."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, request: RecordedRequest) -> Reply:
        metadata = json.loads(request.headers.get("x-codex-turn-metadata", "{}"))
        kind = str(metadata.get("request_kind"))
        self.seen.append(kind)
        step = len(self.seen) - 1
        if step >= len(STEPS) or STEPS[step][0] != kind:
            return JsonReply({"error": {"message": f"unexpected {kind} request {step + 1}"}}, status=400)
        _, answer, reported = STEPS[step]
        return SseReply(response_stream(answer(request.json()), usage=reported))


def session(binary: Path, checkout: Path, home: Path, user: Path, base_url: str) -> list[CodexRun]:
    """The three-command session in `checkout` with CODEX_HOME `home` and HOME `user`."""
    (checkout / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    (checkout / "AGENTS.md").write_text("Use pytest for tests.\n")
    (checkout / "pkg" / "AGENTS.md").write_text("In pkg: keep functions small.\n")
    skill = home / "skills" / "demo-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo-skill\ndescription: A demo skill.\n---\nSay DEMO.\n")
    extra = 'sandbox_mode = "workspace-write"\nmodel_auto_compact_token_limit = 2000\n'
    write_config(home, base_url, extra=extra, model="gpt-5.5")
    user.mkdir(parents=True)
    first = exec_codex(binary, home, user, checkout, "write notes")
    found = re.search(r"session id: (\S+)", first.stderr)
    assert found, first.stderr[-2000:]
    sid, pkg = found.group(1), checkout / "pkg"
    effort = ("-c", 'model_reasoning_effort="high"')
    second = exec_codex(binary, home, user, pkg, "resume", *effort, sid, "now use $demo-skill")
    third = exec_codex(binary, home, user, pkg, "resume", "-m", SWITCHED_MODEL, sid, "finish up")
    return [first, second, third]


def test_codex_session_replays_strictly_from_another_checkout_and_codex_home(tmp_path: Path) -> None:
    binary = codex_binary()
    capture = tmp_path / "codex.jsonl"
    a, b = tmp_path / "a", tmp_path / "b"
    model = ScriptedModel()
    with FakeUpstream(handler=model) as upstream, capture_proxy(upstream.url, capture) as cap:
        recorded_runs = session(binary, a / "w" / "repo", a / "codex-home", a / "user", cap.url)
    assert model.seen == [kind for kind, _, _ in STEPS]
    assert (a / "w" / "repo" / "notes.txt").read_text() == "hello\ngoodbye\n"

    bodies = [e.request_body for e in load_cassette(capture).model_entries]
    recorded = json.dumps(bodies)
    assert len(bodies) == len(STEPS) >= 9
    # what a real multi session holds: both tools, absolute paths, a skill beside the checkout, a switch
    assert "custom_tool_call" in recorded and '"name": "exec_command"' in recorded
    assert f"Add File: {a / 'w' / 'repo' / 'notes.txt'}" in recorded
    assert str(a / "codex-home" / "skills" / "demo-skill" / "SKILL.md") in recorded
    assert "<model_switch>" in recorded and "In pkg: keep functions small." in recorded
    assert [body["model"] for body in bodies] == ["gpt-5.5"] * 6 + [SWITCHED_MODEL] * 3
    assert [body["reasoning"].get("effort") for body in bodies[3:6]] == ["medium", "high", "high"]
    assert "SUMMARY 2" in recorded and "SUMMARY 1" not in json.dumps(bodies[-1])

    shutil.rmtree(a)  # nothing of the recorded checkout or home is left to lean on
    elsewhere = tmp_path / "launched-here"  # the replayer's own cwd says nothing about the client's
    elsewhere.mkdir()
    live = b / "w-second" / "repo"
    with serve_cassette(capture, match="strict", live_cwd=str(elsewhere)) as server:
        replayed_runs = session(binary, live, b / "other-home", b / "person", server.url)
        report = server.report
    assert report.problems() == [], report.problems()
    assert report.served == len(STEPS) and report.remaining == 0
    assert [run.stdout for run in replayed_runs] == [run.stdout for run in recorded_runs]
    assert replayed_runs[-1].stdout.strip() == FINAL
    assert (live / "notes.txt").read_text() == "hello\ngoodbye\n"
    assert not a.exists()

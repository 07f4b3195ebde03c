"""The real Codex CLI with its built-in provider, over the Responses WebSocket: captured, explained,
replayed, and run behind `ctxscope run`.

Codex 0.169 with no `[model_providers]` entry, an API key (`CODEX_API_KEY`) and `openai_base_url`
pointing at `ctxscope.proxy.testing.WsUpstream` (or the proxy in front of it) opens the WebSocket first, one
socket per `codex exec` process, each starting with a prewarm frame. The session (11 frames):

1. `codex exec "run pwd"` (repo): prewarm; `exec_command pwd`; the follow-up sends only its output.
2. `codex exec resume ID "write notes"` (repo): prewarm; `apply_patch` adding `<cwd>/notes.txt`; the
   reply reports a huge context.
3. `codex exec resume ID "now use $demo-skill"` (repo/pkg, its own AGENTS.md, a skill from
   `$CODEX_HOME/skills`): prewarm; Codex compacts first (remote compaction v2: an input ending in
   `compaction_trigger`, answered with one `compaction` item); `exec_command cat ../notes.txt` reports a
   huge context, so Codex compacts again mid-turn (chained: the output and the trigger); the final answer.

Replayed strictly (no flags) into the same three commands in another checkout with another CODEX_HOME
and HOME, the recorded tree deleted first.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxscope.proxy.replay import load_cassette, serve_cassette
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import (
    WsRequest,
    WsUpstream,
    capture_proxy,
    custom_tool_call,
    function_call,
    text_message,
    usage,
)
from tests.cli_support import run_cli, run_cli_process
from tests.inspector.one_account import assert_one_account
from tests.proxy.replay.codex_support import RUN_TIMEOUT_S, CodexRun, codex_binary

pytestmark = pytest.mark.slow

HUGE = usage(input_tokens=300_000, output_tokens=10)  # over model_auto_compact_token_limit: compact
FINAL = "DEMO: all finished"
Items = list[list[dict[str, Any]]]


def _cwd(request: WsRequest) -> Path:
    """The request's working directory (its last environment_context `<cwd>`)."""
    return Path(re.findall(r"<cwd>([^<]+)</cwd>", json.dumps(request.full_input))[-1])


def _add_notes(request: WsRequest) -> Items:
    patch = f"*** Begin Patch\n*** Add File: {_cwd(request) / 'notes.txt'}\n+hello\n*** End Patch\n"
    return [custom_tool_call("apply_patch", patch)]


# The model's answer to each real turn (prewarms and compactions are the upstream's), and its usage.
STEPS: list[tuple[Callable[[WsRequest], Items], dict[str, Any] | None]] = [
    (lambda r: [function_call("exec_command", {"cmd": "pwd"})], None),
    (lambda r: [text_message("ran pwd")], None),
    (_add_notes, None),
    (lambda r: [text_message("wrote notes")], HUGE),
    (lambda r: [function_call("exec_command", {"cmd": "cat ../notes.txt"})], HUGE),
    (lambda r: [text_message(FINAL)], None),
]


class ScriptedModel:
    """Answers the session's real turns in order; the usage it reports goes with each answer."""

    def __init__(self) -> None:
        self.turns = 0
        self._usage: dict[int, dict[str, Any] | None] = {}

    def __call__(self, request: WsRequest) -> Items:
        answer, reported = STEPS[self.turns]
        self.turns += 1
        self._usage[id(request)] = reported
        return answer(request)

    def usage(self, request: WsRequest) -> dict[str, Any] | None:
        return self._usage.get(id(request))


def _codex(binary: Path, home: Path, user: Path, cwd: Path, *args: str) -> CodexRun:
    env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(user), "CODEX_API_KEY": "sk-ws-test-key"}
    proc = subprocess.run(
        [str(binary), "exec", "--skip-git-repo-check", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    return CodexRun(proc.stdout, proc.stderr)


def _builtin_config(home: Path, base_url: str) -> None:
    """The built-in provider (no model_provider) at `base_url`: what most people run, plus compaction."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'model = "gpt-5.5"\nopenai_base_url = "{base_url}/v1"\nsandbox_mode = "workspace-write"\n'
        "model_auto_compact_token_limit = 2000\n"
    )


def session(binary: Path, checkout: Path, home: Path, user: Path, base_url: str) -> list[CodexRun]:
    """The three-command session in `checkout` with CODEX_HOME `home` and HOME `user`."""
    (checkout / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    (checkout / "AGENTS.md").write_text("Use pytest for tests.\n")
    (checkout / "pkg" / "AGENTS.md").write_text("In pkg: keep functions small.\n")
    skill = home / "skills" / "demo-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo-skill\ndescription: A demo skill.\n---\nSay DEMO.\n")
    _builtin_config(home, base_url)
    user.mkdir(parents=True)
    first = _codex(binary, home, user, checkout, "run pwd")
    found = re.search(r"session id: (\S+)", first.stderr)
    assert found, first.stderr[-2000:]
    sid = found.group(1)
    second = _codex(binary, home, user, checkout, "resume", sid, "write notes")
    third = _codex(binary, home, user, checkout / "pkg", "resume", sid, "now use $demo-skill")
    return [first, second, third]


def test_builtin_provider_session_is_explained_and_replays_strictly_elsewhere(tmp_path: Path) -> None:
    binary = codex_binary()
    capture = tmp_path / "codex-ws.jsonl"
    a, b = tmp_path / "a", tmp_path / "b"
    model = ScriptedModel()
    with (
        WsUpstream(handler=model, usage=model.usage) as upstream,
        capture_proxy(upstream.url, capture) as cap,
    ):
        recorded_runs = session(binary, a / "w" / "repo", a / "codex-home", a / "user", cap.url)
        frames = list(upstream.requests)
    assert recorded_runs[-1].stdout.strip() == FINAL
    assert (a / "w" / "repo" / "notes.txt").read_text() == "hello\n"
    # what Codex sent: one socket per process, each opened with a prewarm; two remote compactions
    shape = ["prewarm" if f.prewarm else "compaction" if f.compaction else "turn" for f in frames]
    assert shape == ["prewarm", "turn", "turn"] * 2 + ["prewarm", "compaction", "turn", "compaction", "turn"]
    assert [f.connection for f in frames] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2]
    assert b"sk-ws-test-key" not in capture.read_bytes()

    # explained: one conversation thread, no prewarm turns, the right request kinds, no rewrite
    analysis = assert_one_account(capture)  # batch == incremental; info == diff == TUI counts
    [side, thread] = analysis.threads
    assert side.side == "prewarm" and len(side.turns) == 3
    real = [t for t in analysis.turns if t.turn.side is None]
    assert [t.turn.number for t in real] == [t.number for t in thread.turns]
    kinds = [t.turn.request_kind for t in real]
    assert kinds == ["turn"] * 4 + ["compaction", "turn", "compaction", "turn"]
    changes = [t.change.kind for t in real]
    assert changes == [
        "initial",
        "append",
        "append",
        "append",
        "append",
        "compaction",
        "append",
        "compaction",
    ]
    assert all(t.compaction is not None and t.compaction.trigger == "compaction_trigger" for t in real[-3::2])
    report = run_cli("diff", str(capture)).stdout
    assert "rewrite" not in report and "request_kind prewarm" not in report

    # replayed strictly, with no flags, into Codex in another checkout with another CODEX_HOME
    cassette = load_cassette(capture)
    assert [e.endpoint for e in cassette.model_entries] == ["websocket"] * 11
    shutil.rmtree(a)  # nothing of the recorded checkout or home is left to lean on
    live = b / "w-second" / "repo"
    with serve_cassette(capture, match="strict", live_cwd=str(tmp_path)) as server:
        replayed_runs = session(binary, live, b / "other-home", b / "person", server.url)
        replay = server.report
    assert replay.problems() == [], replay.problems()
    assert replay.served == 11 and replay.remaining == 0
    assert [run.stdout for run in replayed_runs] == [run.stdout for run in recorded_runs]
    assert (live / "notes.txt").read_text() == "hello\n"


def test_ctxscope_run_codex_exec_records_it_and_a_mismatch_ends_it_fast(tmp_path: Path) -> None:
    binary = codex_binary()
    home, user, work = tmp_path / "home", tmp_path / "user", tmp_path / "work"
    user.mkdir()
    work.mkdir()
    env = {"CODEX_HOME": str(home), "HOME": str(user), "CODEX_API_KEY": "sk-ws-test-key"}
    out = tmp_path / "run.jsonl"
    command = [str(binary), "exec", "--skip-git-repo-check"]
    with WsUpstream() as upstream:
        # Codex reaches the local upstream through the proxy's environment (HTTP_PROXY for ws://)
        _builtin_config(home, upstream.url)
        result = run_cli("run", "--out", str(out), "--", *command, "say hi", cwd=work, env=env)
    assert result.returncode == 0, result.stderr
    assert "ctxscope run: 2 model request(s) recorded in full" in result.stderr
    model = [e for e in read_recording(out).exchanges if e.is_model_request]
    assert [e.request_body.get("generate") for e in model] == [False, None]  # the prewarm, the turn
    assert model[1].request_body["input"][-1]["content"][0]["text"] == "say hi"

    # Replayed with another prompt: the mismatch's error frame is final for Codex (400), so it stops at
    # once with the differences, and `ctxscope run` returns its exit code. (A process of its own: the
    # replayer is this process's one mitmproxy.)
    with serve_cassette(out, match="strict") as server:
        _builtin_config(home, server.url)
        again = tmp_path / "again.jsonl"
        failed = run_cli_process("run", "--out", str(again), "--", *command, "say bye", cwd=work, env=env)
        replay = server.report
    assert failed.returncode == 1, failed.stderr[-2000:]
    assert "WebSocket frame does not match cassette" in failed.stderr
    assert len(replay.mismatches) == 1, replay.problems()  # not retried (a 409 was: 12 times, ~14 s)
    # "fast" is held by the count, not by a clock (a shared machine): one mismatch, no retries
    assert "(WebSocket frame on /v1/responses)" in replay.mismatches[0].line()

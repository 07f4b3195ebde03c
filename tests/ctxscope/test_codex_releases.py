"""The real Codex at every release the suite follows (0.169.0 pinned, 0.171.0 the newest): captured with
`ctxscope run`, explained, and replayed strictly into another checkout, over HTTP and the WebSocket.

A person's flow, as the README gives it: in checkout `a/w/repo` (CODEX_HOME and HOME of its own)
`ctxscope run --out REC -- codex exec "RUN: echo hi"`; the model (a local upstream) calls
`exec_command echo hi`, then answers. Then `ctxscope replay REC` started from an unrelated directory,
with no flags, and the same command in `b/w-second/repo` with another CODEX_HOME and HOME: every
request served. HTTP: a custom provider (`[model_providers]`); WebSocket: the built-in provider with
`openai_base_url` and an API key (a prewarm frame first, which names no directory).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import (
    FakeUpstream,
    RecordedRequest,
    SseReply,
    WsRequest,
    WsUpstream,
    function_call,
    response_stream,
    text_message,
)
from tests.inspector.one_account import assert_one_account
from tests.proxy.replay.codex_support import CODEX_VERSIONS, RUN_TIMEOUT_S, codex_binary, write_config

pytestmark = pytest.mark.slow

PROMPT = "RUN: echo hi"
FINAL = "ran echo hi"
CTXSCOPE = Path(sys.executable).parent / "ctxscope"


def _http_model(request: RecordedRequest) -> SseReply:
    items = request.json().get("input", [])
    if items and items[-1].get("type") == "function_call_output":
        return SseReply(response_stream(text_message(FINAL)))
    return SseReply(response_stream(function_call("exec_command", {"cmd": "echo hi"})))


def _ws_model(request: WsRequest) -> list[dict[str, Any]]:
    if request.full_input and request.full_input[-1].get("type") == "function_call_output":
        return [text_message(FINAL)]
    return [function_call("exec_command", {"cmd": "echo hi"})]


def _checkout(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("Use pytest for tests.\n")
    return repo


def _configure(home: Path, transport: str, base_url: str) -> None:
    if transport == "http":
        write_config(home, base_url, model="gpt-5.5", extra='sandbox_mode = "workspace-write"\n')
    else:
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(
            f'model = "gpt-5.5"\nopenai_base_url = "{base_url}/v1"\nsandbox_mode = "workspace-write"\n'
        )


def _env(home: Path, user: Path) -> dict[str, str]:
    user.mkdir(parents=True, exist_ok=True)
    keys = {"LOCAL_KEY": "x", "CODEX_API_KEY": "sk-release-test-key"}
    return {**os.environ, "CODEX_HOME": str(home), "HOME": str(user), **keys}


def _codex(binary: Path, cwd: Path, env: dict[str, str], prefix: list[str] | None = None) -> str:
    command = [*(prefix or []), str(binary), "exec", "--skip-git-repo-check", PROMPT]
    proc = subprocess.run(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=RUN_TIMEOUT_S
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    return proc.stdout + proc.stderr


@contextmanager
def _upstream(transport: str) -> Iterator[FakeUpstream | WsUpstream]:
    if transport == "http":
        with FakeUpstream(handler=_http_model) as http:
            yield http
    else:
        with WsUpstream(handler=_ws_model) as ws:
            yield ws


@contextmanager
def _replayer(recording: Path, cwd: Path, report: Path) -> Iterator[str]:
    """`ctxscope replay RECORDING` with no flags but a free port and a report, started in `cwd`."""
    proc = subprocess.Popen(
        [str(CTXSCOPE), "replay", str(recording), "--listen", "127.0.0.1:0", "--report", str(report)],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = None
        for _ in range(200):  # bounded: the replayer prints where it listens within seconds
            line = proc.stdout.readline()
            if not line:
                break
            if found := re.search(r"listening on (http://\S+)", line):
                url = found.group(1)
                break
        assert url, "the replayer never said where it listens"
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("transport", ["http", "websocket"])
@pytest.mark.parametrize("version", CODEX_VERSIONS)
def test_codex_release_is_captured_explained_and_replayed_elsewhere(
    tmp_path: Path, version: str, transport: str
) -> None:
    binary = codex_binary(version)
    a, b = tmp_path / "a", tmp_path / "b"
    recording = tmp_path / "codex.jsonl"
    repo = _checkout(a / "w")
    env = _env(a / "codex-home", a / "user")
    with _upstream(transport) as upstream:
        _configure(a / "codex-home", transport, upstream.url)
        out = _codex(binary, repo, env, [str(CTXSCOPE), "run", "--out", str(recording), "--"])
        sent = len(upstream.requests)
    assert FINAL in out
    model = [e for e in read_recording(recording).exchanges if e.is_model_request]
    assert len(model) == sent == (3 if transport == "websocket" else 2)  # (prewarm,) tool call, follow-up
    assert f"ctxscope run: {sent} model request(s) recorded in full" in out
    agent = model[-1].request_headers.get("user-agent", "") if model[-1].request_headers else ""
    if transport == "http":
        assert f"/{version} " in agent, agent

    # explained: the opening request classifies completely, with Codex's context fragments named
    analysis = assert_one_account(recording)
    real = [t for t in analysis.turns if t.turn.side is None]
    opening = real[0].turn.items
    assert all(i.kind != "unknown" and all(p.kind != "unknown_part" for p in i.parts) for i in opening)
    fragments = {p.kind for i in opening for p in i.fragments}
    assert {"permissions", "agents_md", "environment_context"} <= fragments, fragments
    assert [t.change.kind for t in real] == ["initial", "append"]
    assert model[-2].request_body["input"][-1]["content"][0]["text"] == PROMPT

    # replayed strictly, no flags, replayer started elsewhere, into another checkout and CODEX_HOME
    elsewhere = tmp_path / "unrelated"
    elsewhere.mkdir()
    live = _checkout(b / "w-second")
    report = tmp_path / "report.json"
    live_env = _env(b / "other-home", b / "person")
    with _replayer(recording, elsewhere, report) as url:
        _configure(b / "other-home", transport, url)
        replayed = _codex(binary, live, live_env)
    assert FINAL in replayed
    said = json.loads(report.read_text())
    assert said["served"] == sent and said["mismatches"] == [], said


@pytest.mark.parametrize("transport", ["http", "websocket"])
@pytest.mark.parametrize("version", CODEX_VERSIONS)
def test_the_promoted_test_of_a_codex_recording_runs_codex_and_catches_a_change(
    tmp_path: Path, version: str, transport: str
) -> None:
    from tests.ctxscope.promote_support import project_pytest

    binary = codex_binary(version)
    recording = tmp_path / "codex.jsonl"
    repo = _checkout(tmp_path / "a" / "w")
    env = _env(tmp_path / "a" / "codex-home", tmp_path / "a" / "user")
    with _upstream(transport) as upstream:
        _configure(tmp_path / "a" / "codex-home", transport, upstream.url)
        _codex(binary, repo, env, [str(CTXSCOPE), "run", "--out", str(recording), "--"])
        last = str(len(upstream.requests))  # the whole run: (the prewarm,) the tool call, the follow-up
    # another project: the test is pasted into its tests/, the cassette beside it
    project = tmp_path / "other-project"
    (project / "tests").mkdir(parents=True)
    (project / "AGENTS.md").write_text("This project's own rules.\n")
    promoted = subprocess.run(
        [str(CTXSCOPE), "promote", str(recording), "--turn", last, "-o", "tests/cassettes/codex.jsonl"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert promoted.returncode == 0, promoted.stderr
    text = promoted.stdout
    assert "from ctxscope.testing import replay_codex" in text and '"AGENTS.md": "Use pytest for tests.\\n"' in text
    assert "ctxscope[proxy]" in text and "Run your client here" not in text
    test_file = project / "tests" / "test_codex.py"
    test_file.write_text(text)  # pasted verbatim

    skipped = project_pytest(project, env={"CODEX_BIN": "", "PATH": "/usr/bin:/bin"})
    assert "1 skipped" in skipped.stdout, skipped.stdout[-3000:]
    passed = project_pytest(project, "-rs", env={"CODEX_BIN": str(binary)})
    assert passed.returncode == 0 and "1 passed" in passed.stdout, passed.stdout[-4000:]

    test_file.write_text(text.replace("Use pytest for tests.", "Use unittest for tests."))
    failed = project_pytest(project, env={"CODEX_BIN": str(binary)})
    assert failed.returncode == 1 and "1 failed" in failed.stdout, failed.stdout[-4000:]
    first = next((line for line in failed.stdout.splitlines() if "ctxscope cassette codex.jsonl" in line), "")
    assert "AGENTS.md" in first, failed.stdout[-4000:]

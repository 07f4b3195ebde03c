"""`ctxscope run -- codex` beside Codex's background app-server daemon: the real TUI, in tmux.

Codex's interactive TUI makes its model requests in a daemon (`codex app-server --managed-daemon`,
parent pid 1) that outlives it and keeps the environment it started with. Driven as a person would,
at both releases: `ctxscope run -- codex` records every request and leaves no daemon; a plain `codex`
right after it reaches its backend (and starts the person's daemon); a second `ctxscope run -- codex`
with that daemon running records every request too, and the daemon keeps running with its pid.
The model is a local upstream on loopback (a custom provider over HTTP, reached through the proxy).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxscope.codex_daemon import running_daemon
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, RecordedRequest, SseReply, response_stream, text_message
from tests.proxy.replay.codex_support import (
    CODEX_VERSIONS,
    CodexTui,
    codex_binary,
    processes_with,
    stop_processes,
    write_config,
)

pytestmark = pytest.mark.slow

ANSWER = "MODEL SAYS HELLO"


def _model(request: RecordedRequest) -> SseReply:
    if "thread_title" in request.headers.get("x-codex-turn-metadata", ""):
        return SseReply(response_stream(text_message('{"title": "hello"}')))
    return SseReply(response_stream(text_message(ANSWER)))


def _prompts(bodies: list[object]) -> list[str]:
    """The last user text of each turn request (title requests left out)."""
    found = []
    for body in bodies:
        assert isinstance(body, dict)
        text = json.dumps(body.get("input", [])[-1:])
        if "User prompt:" not in text:
            found.append(body["input"][-1]["content"][0]["text"])
    return found


@pytest.fixture
def world(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    stop_processes(processes_with(f"CODEX_HOME={tmp_path / 'codex-home'}"))  # the person's daemon of step 2


@pytest.mark.parametrize("version", CODEX_VERSIONS)
def test_run_codex_tui_records_everything_and_leaves_the_daemon_as_found(world: Path, version: str) -> None:
    binary = codex_binary(version)
    home, user, repo = world / "codex-home", world / "user", world / "repo"
    user.mkdir()
    repo.mkdir()
    (repo / "AGENTS.md").write_text("Be brief.\n")
    ctxscope = Path(sys.executable).parent / "ctxscope"
    env = {"CODEX_HOME": str(home), "HOME": str(user), "LOCAL_KEY": "x", "TERM": "xterm-256color"}
    with FakeUpstream(handler=_model) as upstream:
        write_config(
            home,
            upstream.url,
            model="gpt-5.5",
            extra=f'approval_policy = "never"\n[projects."{repo}"]\ntrust_level = "trusted"\n',
        )

        def step(name: str, command: list[str], prompt: str) -> tuple[list[object], str]:
            """One TUI session: the prompt answered, then /quit; the upstream's bodies and last screen."""
            seen = len(upstream.requests)
            tui = CodexTui(f"ctxscope-{name}-{os.getpid()}", repo, command, env)
            try:
                tui.ask(prompt, ANSWER)
                screen = tui.quit()
            finally:
                tui.close()
            return [r.json() for r in upstream.requests[seen:] if r.path.endswith("/responses")], screen

        # 1. `ctxscope run -- codex`, no daemon yet: every request recorded, no daemon left
        first = world / "first.jsonl"
        sent, screen = step("first", [str(ctxscope), "run", "--out", str(first), "--", str(binary)], "first run")
        recorded = [e.request_body for e in read_recording(first).exchanges if e.is_model_request]
        assert _prompts(sent) == ["first run"] and recorded == sent, screen
        assert f"ctxscope run: {len(sent)} model request(s) recorded in full" in screen
        assert running_daemon(home) is None
        assert processes_with(f"CODEX_HOME={home}") == []  # nothing the run started is left

        # 2. a plain `codex` right after reaches its backend, through its own (new) daemon
        sent, _ = step("plain", [str(binary)], "plain codex")
        assert _prompts(sent) == ["plain codex"]
        daemon = running_daemon(home)
        assert daemon is not None, "the plain TUI started no daemon: nothing here tests the daemon case"

        # 3. `ctxscope run -- codex` with that daemon running: recorded all the same, daemon untouched
        second = world / "second.jsonl"
        sent, screen = step("second", [str(ctxscope), "run", "--out", str(second), "--", str(binary)], "second")
        recorded = [e.request_body for e in read_recording(second).exchanges if e.is_model_request]
        assert _prompts(sent) == ["second"] and recorded == sent, screen
        assert running_daemon(home) == daemon  # same pid, still running
        left = set(processes_with(f"CODEX_HOME={home}")) - {daemon.pid, daemon.updater_pid}
        assert left == set(), left

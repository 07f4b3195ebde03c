"""An imported Codex trace in the commands that send a recorded request again, and in the inspector.

The session is the real Codex 0.171.0 (`codex exec "please run echo"`, a tool call, then a resume)
traced with `CODEX_ROLLOUT_TRACE_ROOT` and imported (`ctxscope import codex-trace`): `resend` sends a
recorded request to a loopback upstream and sets the reconstructed answer beside the new one,
`bisect` finds the unit of the context an answer depends on, and `ctxscope inspect` opens the import
in a real terminal (tmux) with the tool's own time on screen. Skipped, saying why, where npm cannot
provide the release or tmux is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, RecordedRequest, SseReply, function_call, response_stream, text_message
from tests.cli_support import run_cli
from tests.proxy.test_codex_trace import traced_session

pytestmark = pytest.mark.slow

PROMPT = "please run echo"
WAIT_S = 60.0
"""Bound on waiting for the inspector's screen (a loaded 2-core machine starts Python slowly)."""


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The traced session at 0.171.0, imported."""
    tmp = tmp_path_factory.mktemp("codex-trace-views")
    _, traces = traced_session("0.171.0", tmp)
    out = tmp / "imported.jsonl"
    result = run_cli("import", "codex-trace", str(traces), "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


def _config(tmp_path: Path, url: str) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(f'[providers.local]\nbase_url = "{url}/v1"\n')  # no env_key: sends no key
    return config


def test_resend_sends_an_imported_request_and_sets_the_reconstructed_answer_beside(
    imported: Path, tmp_path: Path
) -> None:
    recorded = read_recording(imported).exchanges[0]
    with FakeUpstream() as upstream:
        upstream.reply(SseReply(response_stream(text_message("I would rather not run anything."))))
        result = run_cli(
            "resend", str(imported), "--turn", "1", "--json", "--no-capture",
            "--config", str(_config(tmp_path, upstream.url)), "--provider", "local",
        )  # fmt: skip
        sent = [r.json() for r in upstream.requests]
    assert result.returncode == 0, result.stderr
    # what went out is the request as Codex's trace holds it (no edits asked for)
    assert len(sent) == 1 and sent[0]["input"] == recorded.request_body["input"]
    assert sent[0]["tools"] == recorded.request_body["tools"]
    doc = json.loads(result.stdout)
    assert doc["edits"] == [] and doc["errors"] == []
    # the recorded answer is the one rebuilt from the trace's output items: the exec_command call, with
    # the usage Codex traced; the new answer beside it is the upstream's message
    assert doc["recorded"]["status"] == "completed"
    assert [s["kind"] for s in doc["recorded"]["steps"]] == ["function_call exec_command"]
    assert "echo hi" in doc["recorded"]["steps"][0]["gist"]
    assert doc["recorded"]["usage"]["output_tokens"] == recorded.response["usage"]["output_tokens"]  # type: ignore[index]
    assert [s["kind"] for s in doc["answers"][0]["steps"]] == ["message"]


def test_bisect_finds_the_prompt_an_imported_answer_depends_on(imported: Path, tmp_path: Path) -> None:
    def model(request: RecordedRequest) -> SseReply:
        if PROMPT in json.dumps(request.json().get("input")):
            return SseReply(response_stream(function_call("exec_command", {"cmd": "echo hi"})))
        return SseReply(response_stream(text_message("Nothing to run.")))

    capture = tmp_path / "bisect.jsonl"
    with FakeUpstream(handler=model) as upstream:
        result = run_cli(
            "bisect", str(imported), "--turn", "1", "--until", "tool:exec_command", "--format", "json",
            "--config", str(_config(tmp_path, upstream.url)), "--provider", "local", "--capture", str(capture),
        )  # fmt: skip
        asked = len(upstream.requests)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    # the reconstructed answer holds the exec_command call, and so does the baseline sent again
    assert doc["recorded"] is True and doc["baseline"] is True
    [found] = doc["found"]
    assert PROMPT in json.dumps(found), found  # the user's message is the one unit that flips it
    assert doc["requests"] == asked == len(read_recording(capture).model_requests())


def _tmux(socket: Path, *args: str) -> str:
    tmux = shutil.which("tmux")
    assert tmux is not None
    done = subprocess.run([tmux, "-S", str(socket), *args], capture_output=True, text=True, timeout=30, check=False)
    return done.stdout


def _wait(socket: Path, name: str, seen: Callable[[str], bool], what: str) -> str:
    """The screen once `seen` holds for it; fails with the screen after `WAIT_S`."""
    deadline = time.monotonic() + WAIT_S
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux(socket, "capture-pane", "-p", "-t", name)
        if seen(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"never saw {what}; the screen was:\n{screen}")


def test_inspect_opens_an_import_in_a_real_terminal_with_the_tools_own_time(imported: Path, tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: no real terminal to drive")
    socket, name = tmp_path / "tmux.sock", f"inspect-{uuid.uuid4().hex[:8]}"
    command = f"env -u COLUMNS -u LINES TERM=xterm-256color {sys.executable} -m ctxscope.cli inspect {imported}"
    _tmux(socket, "new-session", "-d", "-s", name, "-x", "160", "-y", "45", command)
    try:
        _wait(socket, name, lambda s: "turn 1 of 3" in s, "turn 1 of the import in the header")
        # to the turn pane, then its last line: turn 1's answer, the exec_command call, with the time and
        # exit status only Codex's trace knows (no proxy sees the tool run)
        _tmux(socket, "send-keys", "-t", name, "Tab")
        _tmux(socket, "send-keys", "-t", name, "End")
        # waited for whole: the timeline shows `[ran …, exit 0]` too, wrapped under its row's figures
        ran = r'function_call exec_command \{"cmd": "echo hi"\} \[ran (<1|[\d,]+) ms, exit 0\]'
        screen = _wait(socket, name, lambda s: re.search(ran, s) is not None, "the tool's run on the answer's line")
        assert re.search(ran, screen), screen
    finally:
        _tmux(socket, "kill-server")

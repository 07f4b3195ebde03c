"""The codex profile against the real thing: Codex 0.169's TUI in tmux, captured through the proxy.

The TUI is driven with the key sequences of `codex-observed.md` §4.1 (`/plan <task>` + Enter, the
trust and model pickers on a first launch, Enter on "Implement this plan?"); the harness's chat runs
the same session (`/plan <task>`, choice 1 at its review: there an empty line keeps planning).
Both go through a recording proxy to a local fake model. Their plan-mode layouts are compared as
labels: where the `<collaboration_mode>` fragments sit, what the implement request appends. Only
labels and our own texts are asserted; Codex's prompt text stays in the temporary capture. Skipped
(saying why) without tmux or the CLI.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.context import classify_text
from ctxscope.harness.modes.plan import IMPLEMENT_PROMPT
from ctxscope.harness.repl import run_repl
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import (
    FakeUpstream,
    RecordedRequest,
    SseReply,
    capture_proxy,
    response_stream,
    text_message,
)
from tests.harness.harness_support import PINNED_CONTEXT, make_repo, write_script
from tests.proxy.replay.codex_support import CodexTui, codex_binary

pytestmark = pytest.mark.slow

TASK = "add a greet function"
ANSWER = "Looked around.\n<proposed_plan>\n# Greet\n1. Add greet() to pkg/greet.py\n</proposed_plan>\n"


def _model(request: RecordedRequest) -> SseReply:
    """The fake model: a title for title requests, the plan, then "done" once asked to implement."""
    if "thread_title" in request.headers.get("x-codex-turn-metadata", ""):
        return SseReply(response_stream(text_message('{"title": "greet"}')))
    last = json.dumps(request.json().get("input", [])[-1:])
    return SseReply(response_stream(text_message("done" if IMPLEMENT_PROMPT in last else ANSWER)))


def _daemons(codex_home: Path) -> list[int]:
    """The TUI's background app-server processes (they outlive the TUI; found by their CODEX_HOME)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(codex_home) in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture
def codex_tui(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: cannot drive the Codex TUI")
    binary = codex_binary()
    home = tmp_path / "codex_home"
    yield binary, home
    for pid in _daemons(home):
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            pass


def _projection(items: list[dict[str, Any]]) -> list[str]:
    """The plan-mode shape of an input: mode fragments (with the permissions part next to them in the
    context message), user prompts and assistant answers; everything else left out."""
    shape = []
    for item in items:
        if item.get("type") != "message":
            continue
        role = item.get("role", "")
        texts = [p.get("text", "") for p in item.get("content", []) if isinstance(p, dict)]
        kinds = [m.label if (m := classify_text(t, role)) else "text" for t in texts]
        modes = [k for k in kinds if k.startswith(("collaboration_mode", "permissions"))]
        if any(k.startswith("collaboration_mode") for k in kinds):
            shape.append(f"{role}[{', '.join(modes)}]")
        elif role == "assistant":
            shape.append("assistant")
        elif role == "user" and kinds == ["text"] and len(texts) == 1:
            shape.append(f"user: {texts[0]}")
    return shape


def _turn_requests(capture: Path) -> list[dict[str, Any]]:
    bodies = []
    for exchange in read_recording(capture).exchanges:
        meta = exchange.request_headers.get("x-codex-turn-metadata", "") if exchange.request_headers else ""
        if exchange.endpoint == "responses" and "thread_title" not in meta:
            bodies.append(exchange.request_body)
    return bodies


def test_the_harness_plan_layout_matches_the_codex_tui(
    codex_tui: tuple[Path, Path], tmp_path: Path, ctxscope_home: Path
) -> None:
    binary, codex_home = codex_tui
    repo = make_repo(tmp_path / "ws")
    codex_capture = tmp_path / "codex.jsonl"
    with FakeUpstream(_model) as upstream, capture_proxy(upstream.url, codex_capture) as proxy:
        codex_home.mkdir()
        (codex_home / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "local"\nsandbox_mode = "workspace-write"\n'
            'approval_policy = "never"\n[model_providers.local]\nname = "local"\n'
            f'base_url = "{proxy.url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_KEY"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
        )
        env = {"CODEX_HOME": str(codex_home), "HOME": str(tmp_path / "home"), "LOCAL_KEY": "x"}
        env["TERM"] = "xterm-256color"
        tui = CodexTui(f"ctxscope-plan-{os.getpid()}", repo, [str(binary)], env)
        try:
            # A first launch shows its pickers after the command was typed: `submit` answers them
            # and presses Enter again while the composer still holds the command.
            screen = tui.submit(f"/plan {TASK}", "Implement this plan?")
            assert "Proposed Plan" in screen
            tui.keys("Enter")
            tui.wait_for("done")
        finally:
            tui.close()
    codex = _turn_requests(codex_capture)

    harness_capture = tmp_path / "harness.jsonl"
    script = write_script(tmp_path / "s.json", [{"text": ANSWER}, {"text": "done"}])
    options = AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=harness_capture,
        announce_mode=True,
        context_overrides=dict(PINNED_CONTEXT),
    )
    lines = iter([f"/plan {TASK}", "1", "/quit"])  # Codex: Enter on the highlighted first choice
    with AgentRuntime(options) as runtime:
        run_repl(runtime, read=lambda _p: next(lines), err=io.StringIO())
    ours = _turn_requests(harness_capture)

    assert len(codex) == len(ours) == 2
    for theirs, mine in zip(codex, ours, strict=True):
        assert _projection(mine["input"]) == _projection(theirs["input"])
    assert _projection(ours[1]["input"]) == [
        "developer[permissions, collaboration_mode:plan]",
        f"user: {TASK}",
        "assistant",
        "developer[collaboration_mode:default]",
        f"user: {IMPLEMENT_PROMPT}",
    ]
    assert ours[0]["tools"] == ours[1]["tools"] and codex[0]["tools"] == codex[1]["tools"]
    # The inspector tells both sessions' plan mode the same way (side requests have no mode events):
    # the first request starts in plan mode (no switch on the wire), its answer holds the plan, the
    # second switches to default.
    for capture in (codex_capture, harness_capture):
        turns = [t for t in analyse_recording(capture).turns if t.turn.side is None]
        said = [[e.sentence for e in t.mode_events] for t in turns]
        assert said == [
            ["plan submitted (revision 1)"],
            ["mode plan → default (plan revision 1 approved)"],
        ]

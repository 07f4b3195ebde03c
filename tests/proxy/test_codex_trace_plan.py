"""Codex's own trace of a plan-mode session, imported: the real Codex TUI (tmux) at both releases.

`/plan <task>` in the TUI (`--no-daemon`, so its requests are made in the process that has
`CODEX_ROLLOUT_TRACE_ROOT`), the model answers with a `<proposed_plan>`, Enter on "Implement this
plan?", the model answers done. Through the recording proxy to a local upstream. The trace holds plan
mode as the requests do (the `<collaboration_mode>` fragments), plus each turn's mode
(`task_started.collaboration_mode_kind`); the thread-title side request is a bundle of its own
(`thread_source: thread_title`). The import equals the wire capture body for body and the inspector
tells both the same plan story. Skipped, saying why, without tmux or the CLI.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.proxy.codex_trace import find_bundles
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, RecordedRequest, SseReply, capture_proxy, response_stream, text_message
from tests.cli_support import run_cli
from tests.proxy.replay.codex_support import CodexTui, codex_binary, processes_with, stop_processes

pytestmark = pytest.mark.slow

TASK = "add a greet function"
ANSWER = "Looked around.\n<proposed_plan>\n# Greet\n1. Add greet() to pkg/greet.py\n</proposed_plan>\n"


def _model(request: RecordedRequest) -> SseReply:
    """A title for the title request, the plan, then "done" once the plan is to be implemented."""
    if "thread_title" in request.headers.get("x-codex-turn-metadata", ""):
        return SseReply(response_stream(text_message('{"title": "greet"}')))
    planned = any(i.get("role") == "assistant" for i in request.json().get("input", []))  # the plan answered
    return SseReply(response_stream(text_message("done" if planned else ANSWER)))


def _plan_session(tui: CodexTui) -> None:
    """`/plan TASK`, through the first launch's pickers, then Enter on "Implement this plan?"."""
    tui.submit(f"/plan {TASK}", "Implement this plan?")
    tui.keys("Enter")
    tui.wait_for("done")
    tui.quit()


@pytest.mark.parametrize("version", ["0.169.0", "0.171.0"])
def test_a_plan_mode_session_is_imported_body_for_body_with_each_turns_mode(version: str, tmp_path: Path) -> None:
    binary = codex_binary(version)
    home, user, repo, traces = (tmp_path / n for n in ("home", "user", "repo", "traces"))
    for directory in (home, user, repo):
        directory.mkdir()
    capture = tmp_path / "wire.jsonl"
    with FakeUpstream(_model) as upstream, capture_proxy(upstream.url, capture) as cap:
        (home / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "local"\nsandbox_mode = "workspace-write"\n'
            'approval_policy = "never"\n[model_providers.local]\nname = "local"\n'
            f'base_url = "{cap.url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_KEY"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
        )
        env = {
            "CODEX_HOME": str(home),
            "HOME": str(user),
            "LOCAL_KEY": "x",
            "TERM": "xterm-256color",
            "CODEX_ROLLOUT_TRACE_ROOT": str(traces),
        }
        tui = CodexTui(f"ctxscope-trace-plan-{os.getpid()}", repo, [str(binary), "--no-daemon"], env)
        try:
            _plan_session(tui)
        finally:
            tui.close()
            stop_processes(processes_with(f"CODEX_HOME={home}"))
        cap.wait_for(3)
    bundles, problems = find_bundles([traces])
    assert problems == [] and len(bundles) == 2  # the session, and the title request's own rollout
    out = tmp_path / "imported.jsonl"
    result = run_cli("import", "codex-trace", str(traces), "-o", str(out))
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    wire = [e for e in read_recording(capture).exchanges if e.is_model_request]
    imported = read_recording(out).exchanges
    assert len(imported) == len(wire) == 3
    for number, (theirs, ours) in enumerate(zip(wire, imported, strict=True), start=1):
        assert ours.request_body == theirs.request_body, f"request {number} differs"
    notes = [e.meta["codex_trace"] for e in imported]
    assert [n["collaboration_mode"] for n in notes] == ["plan", "default", "default"]
    assert [n["thread_source"] for n in notes] == ["user", "thread_title", "user"]
    assert notes[0]["thread_id"] == notes[2]["thread_id"] != notes[1]["thread_id"]
    # one account: the inspector tells the import's plan mode as it tells the wire's
    told = [
        [(t.turn.side, [e.sentence for e in t.mode_events]) for t in analyse_recording(path).turns]
        for path in (capture, out)
    ]
    assert told[0] == told[1] == [
        (None, ["plan submitted (revision 1)"]),
        ("thread_title", []),
        (None, ["mode plan → default (plan revision 1 approved)"]),
    ]

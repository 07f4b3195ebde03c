"""Ids and metadata keys as Codex CLI 0.169 sends them, with the harness's own values: the key sets
of `client_metadata` and `x-codex-turn-metadata`, a constant `x-client-request-id` per thread,
`history_initialization` new then cold_resume, the workspace's git state, and ids on every
injected message and tool output. Checked on requests the real proxy recorded."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.harness.harness_support import make_repo, run_agent, write_config, write_script

# Observed on the wire from `codex exec` 0.169.0 (codex-observed.md §1).
CODEX_CLIENT_METADATA_KEYS = {
    "thread_id",
    "turn_id",
    "root_turn_id",
    "session_id",
    "x-codex-installation-id",
    "x-codex-window-id",
    "x-codex-turn-metadata",
}
CODEX_TURN_METADATA_KEYS = {
    "installation_id",
    "session_id",
    "thread_id",
    "agent_name",
    "turn_id",
    "window_id",
    "window_number",
    "context_window_id",
    "request_kind",
    "history_initialization",
    "root_turn_id",
    "thread_source",
    "turn_trigger",
    "sandbox",
    "sandbox_mode",
    "auto_review_enabled",
    "node_repl_auto_review_required",
    "node_repl_disabled",
    "workspaces",
    "turn_started_at_unix_ms",
    "analytics_enabled",
    "model",
    "reasoning_effort",
}

CALL = {"function_call": {"name": "exec_command", "arguments": {"cmd": "echo hi"}}}


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    return repo


def test_metadata_keys_ids_and_resume(repo: Path, tmp_path: Path) -> None:
    first = run_agent(
        repo, write_script(tmp_path / "a.json", [CALL, {"text": "one"}]), ["a"], tmp_path / "a.jsonl"
    )
    again = run_agent(
        repo,
        write_script(tmp_path / "b.json", [{"text": "two"}]),
        ["b"],
        tmp_path / "b.jsonl",
        session=first.session_id,
    )
    exchanges = first.exchanges() + again.exchanges()
    turns = []
    for exchange in exchanges:
        meta = exchange.request_body["client_metadata"]
        assert set(meta) == CODEX_CLIENT_METADATA_KEYS
        turn = json.loads(meta["x-codex-turn-metadata"])
        # gpt-test is not in the catalog: no reasoning effort, so (as in Codex) no such key.
        assert set(turn) == CODEX_TURN_METADATA_KEYS - {"reasoning_effort"}
        headers = {k.lower(): v for k, v in exchange.request_headers.items()}
        assert headers["x-client-request-id"] == first.session_id  # constant per thread
        assert json.loads(headers["x-codex-turn-metadata"]) == turn
        turns.append(turn)
    assert [t["history_initialization"] for t in turns] == ["new", "new", "cold_resume"]
    assert turns[0]["turn_id"] == turns[1]["turn_id"] != turns[2]["turn_id"]
    assert turns[0]["installation_id"] == turns[2]["installation_id"]
    assert turns[0]["workspaces"] == {str(repo): {"has_changes": True}}  # no commit yet: no hash
    assert (turns[0]["sandbox_mode"], turns[0]["window_id"]) == ("workspace-write", f"{first.session_id}:0")
    # Every injected message and every tool output carries an id.
    items = exchanges[-1].request_body["input"]
    assert all(
        i["id"].startswith("msg_") for i in items if i["type"] == "message" and i["role"] != "assistant"
    )
    (output,) = [i for i in items if i["type"] == "function_call_output"]
    assert output["id"].startswith("fco_")


def test_workspace_commit_hash_and_headless_trigger(repo: Path, tmp_path: Path) -> None:
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()

    def headless(runtime: object, i: int) -> None:
        runtime.agent.turn_trigger = "exec"  # type: ignore[attr-defined]

    run = run_agent(
        repo,
        write_script(tmp_path / "s.json", [{"text": "ok"}]),
        ["a"],
        tmp_path / "c.jsonl",
        commands=headless,
    )
    (body,) = run.bodies()
    turn = json.loads(body["client_metadata"]["x-codex-turn-metadata"])
    assert turn["workspaces"] == {str(repo): {"latest_git_commit_hash": head, "has_changes": False}}
    assert turn["turn_trigger"] == "exec"

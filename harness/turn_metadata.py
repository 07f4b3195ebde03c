"""The per-request metadata Codex CLI 0.169 sends, with ctxscope's own values.

Codex puts the same facts in `client_metadata` (body) and in the `x-codex-turn-metadata` header (a
JSON string): ids of the installation, thread, turn and context window, what started the turn,
the sandbox, the git state of the workspaces, the model. The harness sends the same key sets so a
comparison with a Codex capture lines up; the values are its own (there is no OS sandbox here, no
node REPL, no analytics, so those say so).
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxscope.harness.tools.git_guard import run_git
from ctxscope.proxy.home import config_dir
from ctxscope.proxy.responses.vocabulary import CodexHeader, MetadataKey

__all__ = ["TurnIds", "client_metadata", "installation_id", "message_id", "workspace_status"]

GIT_TIMEOUT_S = 5.0
"""A git call that takes longer (a huge repo, a hung filesystem) just leaves the fields out."""


@dataclass(frozen=True)
class TurnIds:
    """Who and what a request belongs to."""

    session_id: str
    turn_id: str
    installation_id: str
    window: int = 0
    """Compactions so far (the `n` of `<thread>:<n>`)."""
    history_initialization: str = "new"
    """`new` for a fresh thread, `cold_resume` for one loaded from a session file."""
    turn_trigger: str = "user"
    """`user` (interactive), `exec` (headless `-p`), `goal` (a goal continuation)."""
    turn_started_ms: int = 0

    @property
    def window_id(self) -> str:
        return f"{self.session_id}:{self.window}"

    @property
    def context_window_id(self) -> str:
        """Stable per (thread, window) without keeping state: a name-based uuid."""
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"ctxscope:{self.window_id}"))


def installation_id() -> str:
    """A random id kept in the ctxscope home, the same for every session on this machine."""
    path = config_dir() / "installation_id"
    try:
        value = path.read_text(encoding="utf-8").strip()
        uuid.UUID(value)
        return value
    except (OSError, ValueError):
        value = str(uuid.uuid4())
    try:
        path.write_text(value + "\n", encoding="utf-8")
    except OSError:
        pass  # an unwritable home only means a new id next time
    return value


def message_id() -> str:
    """An id for an item the harness injects (`msg_…`, like Codex's)."""
    return f"msg_{uuid.uuid4()}"


def workspace_status(cwd: Path) -> dict[str, dict[str, Any]]:
    """`{git root: {latest_git_commit_hash?, has_changes?}}` for the cwd's repository; {} outside git.

    Through `git_guard.run_git`, like every git the harness runs itself: a repository whose config
    makes git run programs gets no `git status` (so no `has_changes`); `rev-parse` runs none.
    """
    # rev-parse reads refs only; the judgement is for `status`, which runs what the config names.
    root = run_git(cwd, "rev-parse", "--show-toplevel", timeout=GIT_TIMEOUT_S, judged=True)
    if root.stdout is None or not root.stdout.strip():
        return {}
    state: dict[str, Any] = {}
    head = run_git(cwd, "rev-parse", "--verify", "-q", "HEAD", timeout=GIT_TIMEOUT_S, judged=True)
    if head.stdout and head.stdout.strip():
        state["latest_git_commit_hash"] = head.stdout.strip()
    status = run_git(cwd, "status", "--porcelain", timeout=GIT_TIMEOUT_S)
    if status.stdout is not None:
        state["has_changes"] = bool(status.stdout.strip())
    return {root.stdout.strip(): state}


def client_metadata(
    ids: TurnIds,
    *,
    request_kind: str,
    model: str,
    reasoning_effort: str | None,
    sandbox_mode: str,
    workspaces: dict[str, dict[str, Any]],
) -> dict[str, str]:
    """`client_metadata` of the body; its `x-codex-turn-metadata` value is also sent as a header."""
    turn: dict[str, Any] = {
        "installation_id": ids.installation_id,
        MetadataKey.SESSION_ID.value: ids.session_id,
        MetadataKey.THREAD_ID.value: ids.session_id,
        "agent_name": "/root",
        "turn_id": ids.turn_id,
        "window_id": ids.window_id,
        "window_number": ids.window,
        "context_window_id": ids.context_window_id,
        "request_kind": request_kind,
        "history_initialization": ids.history_initialization,
        "root_turn_id": ids.turn_id,
        "thread_source": "user",
        "turn_trigger": ids.turn_trigger,
        "sandbox": "none",  # rules are enforced in the tool layer; no OS sandbox
        "sandbox_mode": sandbox_mode,
        "auto_review_enabled": False,
        "node_repl_auto_review_required": False,
        "node_repl_disabled": True,
        "workspaces": workspaces,
        "turn_started_at_unix_ms": ids.turn_started_ms or int(time.time() * 1000),
        "analytics_enabled": False,
        "model": model,
    }
    if reasoning_effort:  # Codex leaves the key out for a model with no effort setting
        turn["reasoning_effort"] = reasoning_effort
    return {
        CodexHeader.INSTALLATION_ID.value: ids.installation_id,
        MetadataKey.SESSION_ID.value: ids.session_id,
        CodexHeader.TURN_METADATA.value: json.dumps(turn, separators=(",", ":")),
        "turn_id": ids.turn_id,
        "root_turn_id": ids.turn_id,
        CodexHeader.WINDOW_ID.value: ids.window_id,
        MetadataKey.THREAD_ID.value: ids.session_id,
    }

"""Session files: entries with parent ids, load/branch/fork, torn lines, no secrets on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope.harness.session import SessionStore
from ctxscope.proxy.errors import ConfigError


def test_entries_chain_and_load(tmp_path: Path) -> None:
    store = SessionStore.create({"cwd": "/r", "model": "m1"}, directory=tmp_path)
    store.append("world_state", {"state": {"cwd": "/r"}})
    store.append("response_item", {"item": {"type": "message", "role": "user", "content": []}})
    store.append("model_switch", {"from": "m1", "to": "m2"})
    store.append("turn_context", {"turn_id": "t"})
    entries = store.entries()
    assert [e.type for e in entries] == [
        "session_meta",
        "world_state",
        "response_item",
        "model_switch",
        "turn_context",
    ]
    assert all(b.parent_id == a.id for a, b in zip(entries, entries[1:], strict=False))
    state = SessionStore.open(store.session_id, directory=tmp_path).load()
    assert state.model == "m2" and state.world_state == {"cwd": "/r"} and len(state.history) == 1


def test_open_by_prefix_path_and_errors(tmp_path: Path) -> None:
    store = SessionStore.create({}, directory=tmp_path)
    assert SessionStore.open(store.session_id[:8], directory=tmp_path).path == store.path
    assert SessionStore.open(str(store.path)).session_id == store.session_id
    with pytest.raises(ConfigError, match="no session 'zzz'"):
        SessionStore.open("zzz", directory=tmp_path)
    (tmp_path / "junk.jsonl").write_text('{"hello": 1}\n')
    with pytest.raises(ConfigError, match="not a ctxscope session"):
        SessionStore.open(str(tmp_path / "junk.jsonl"))


def test_torn_last_line_is_skipped(tmp_path: Path) -> None:
    store = SessionStore.create({}, directory=tmp_path)
    store.append("event", {"kind": "notice"})
    store.close()  # the writer is gone (killed mid-line): its torn line stays behind
    with store.path.open("a") as f:
        f.write('{"id": "e9", "parent')
    reopened = SessionStore.open(store.session_id, directory=tmp_path)
    assert [e.type for e in reopened.entries()] == ["session_meta", "event"]
    reopened.append("event", {"kind": "after"})  # the next writer cuts the torn line off first
    assert reopened.entries()[-1].payload == {"kind": "after"}
    assert '"e9"' not in store.path.read_text()  # not left in the middle


def test_fork_copies_one_branch(tmp_path: Path) -> None:
    store = SessionStore.create({"model": "m"}, directory=tmp_path)
    keep = store.append("response_item", {"item": {"type": "message", "role": "user", "content": []}})
    store.append("response_item", {"item": {"type": "message", "role": "assistant", "content": []}})
    fork = store.fork(leaf=keep.id)
    assert fork.session_id != store.session_id
    meta = fork.entries()[0].payload
    assert meta["forked_from"] == {"session_id": store.session_id, "entry_id": keep.id}
    assert len(fork.load().history) == 1 and len(store.load().history) == 2


def test_content_kept_exactly_held_credentials_withheld(tmp_path: Path) -> None:
    store = SessionStore.create(
        {"api_key": "sk-live-0123456789abcdefghij"},
        directory=tmp_path,
        credentials=lambda: ["abcdefghijklmnopqrstuvwxyz012345"],
    )
    store.append("event", {"message": "Bearer abcdefghijklmnopqrstuvwxyz012345 leaked"})
    text = store.path.read_text()
    assert "abcdefghijklmnopqrstuvwxyz012345" not in text  # the harness's own credential
    assert "sk-live-0123456789abcdefghij" in text  # conversation content is the agent's memory: exact
    assert store.entries()[-1].payload == {"message": "Bearer <withheld:credential> leaked"}
    assert all(json.loads(line) for line in text.splitlines())


def test_a_complete_last_line_without_its_newline_is_kept_and_continued(tmp_path: Path) -> None:
    store = SessionStore.create({}, directory=tmp_path)
    store.append("event", {"kind": "notice"})
    store.close()
    store.path.write_bytes(store.path.read_bytes().rstrip(b"\n"))  # killed between the line and its newline
    reopened = SessionStore.open(str(store.path))
    assert [e.type for e in reopened.entries()] == ["session_meta", "event"]
    reopened.append("event", {"kind": "after"})
    reopened.close()
    assert [e.payload.get("kind") for e in SessionStore.open(str(store.path)).entries()] == [
        None,
        "notice",
        "after",
    ]

"""World-state timeline: typed values per turn and the sentences that say what changed."""

from __future__ import annotations

from collections.abc import Callable

from inspector.analysis import Analysis


def test_changes_read_as_sentences(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("world")
    assert a.turn(1).state_changes == []
    assert a.turn(2).state_changes == [
        "cwd /repo → /repo/pkg",
        "approval policy on-request → never",
        "network restricted → enabled",
        "collaboration mode unset → plan",
        "model gpt-5-codex → gpt-5.1-codex",
        "reasoning effort medium → high",
        "writable roots changed: /repo → /repo/pkg, /tmp",
        "AGENTS.md replaced: /repo → /repo/pkg",
        "skill demo-skill selected",
    ]
    assert a.turn(3).state_changes == ["goal set: ship the parser"]


def test_state_holds_typed_values(analysed: Callable[[str], Analysis]) -> None:
    state = analysed("world").turn(3).state
    assert state["cwd"] == "/repo/pkg" and state["shell"] == "bash" and state["timezone"] == "UTC"
    assert state["date"] == "2026-11-29"
    assert state["sandbox"] == "workspace-write" and state["approval"] == "never" and state["network"] is True
    assert state["writable_roots"] == ["/repo/pkg", "/tmp"]
    assert state["agents_md"] == {"/repo/pkg": "Package rules."}
    assert state["skills"] == ["demo-skill"] and state["selected_skills"] == ["demo-skill"]
    assert state["collaboration_mode"] == "plan" and state["goal"] == "ship the parser"
    assert state["model"] == "gpt-5.1-codex" and state["reasoning_effort"] == "high"


def test_state_after_compaction_is_rebuilt_from_the_new_context(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("compaction")
    assert a.turn(5).state["cwd"] == "/repo"
    assert a.turn(5).state["agents_md"] == {"/repo": "Use pytest."}
    assert a.turn(5).state_changes == []

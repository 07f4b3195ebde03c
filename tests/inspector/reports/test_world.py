"""World state in reports: sentences told from `StateChange` records and field metadata, and the
`world_state` document under the key names `ctxscope-report/1` was published with."""

from __future__ import annotations

from collections.abc import Callable

from ctxscope.harness.context import SkillInfo, world_fields
from ctxscope.inspector.analysis import Analysis, StateChange
from ctxscope.inspector.reports import (
    PUBLISHED_KEYS,
    describe_change,
    describe_changes,
    diff_report,
    world_state_doc,
)


def test_changes_read_as_sentences(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("world")
    assert describe_changes(a.turn(1).state_changes) == []
    assert describe_changes(a.turn(2).state_changes) == [
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
    assert describe_changes(a.turn(3).state_changes) == ["goal set: ship the parser"]
    # The report's timeline says the same.
    assert diff_report(a).turns[1].world_state_changes == describe_changes(a.turn(2).state_changes)


def test_each_style_tells_its_change() -> None:
    def told(field: str, before: object, after: object, replaced: bool = False) -> list[str]:
        return describe_change(StateChange(field, before, after, replaced))

    assert told("shell", "bash", None) == ["shell bash no longer in context"]
    assert told("shell", None, "bash") == ["shell unset → bash"]
    assert told("agents_md", {"/r": "a"}, {"/r": "b", "/r/p": "c"}) == [
        "AGENTS.md added: /r/p",
        "AGENTS.md changed: /r",
    ]
    assert told("agents_md", {"/r": "a"}, {"/r": "b"}, replaced=True) == [
        "AGENTS.md replaced: /r (text changed)"
    ]
    assert told("agents_md", {"/r": "a"}, {}) == ["AGENTS.md removed: /r"]
    a, b = SkillInfo(name="a", description="", path=""), SkillInfo(name="b", description="", path="")
    assert told("skills", [a], [b]) == ["skills catalog changed: +b -a"]
    assert told("selected_skills", ["x"], ["x", "y"]) == ["skill y selected"]
    # dropped by a context rebuild (a compaction that did not bring it back): said, not left silent
    assert told("selected_skills", ["x"], []) == ["skill x no longer in context"]
    assert told("goal", "g", None) == ["goal no longer in context"]
    assert told("goal", None, "word " * 40) == [f"goal set: {('word ' * 40).strip()[:79]}…"]
    assert told("personality", "calm", "terse") == ["personality changed"]


def test_sentences_come_in_report_order_whatever_the_record_order() -> None:
    changes = [
        StateChange("goal", None, "g"),
        StateChange("writable_roots", [], ["/r"]),
        StateChange("network_enabled", False, True),
        StateChange("cwd", "/a", "/b"),
    ]
    assert describe_changes(changes) == [
        "cwd /a → /b",
        "network restricted → enabled",
        "writable roots changed: none → /r",
        "goal set: g",
    ]


def test_world_state_keeps_its_published_key_names(analysed: Callable[[str], Analysis]) -> None:
    doc = world_state_doc(analysed("world").turn(3).state)
    assert doc == {
        "cwd": "/repo/pkg",
        "shell": "bash",
        "date": "2026-11-29",
        "timezone": "UTC",
        "sandbox": "workspace-write",
        "approval": "never",
        "network": True,
        "writable_roots": ["/repo/pkg", "/tmp"],
        "collaboration_mode": "plan",
        "agents_md": {"/repo/pkg": "Package rules."},
        "skills": ["demo-skill"],
        "selected_skills": ["demo-skill"],
        "goal": "ship the parser",
        "model": "gpt-5.1-codex",
        "reasoning_effort": "high",
    }


def test_the_request_settings_are_published_even_when_unset(analysed: Callable[[str], Analysis]) -> None:
    doc = world_state_doc(analysed("odd_input").turn(1).state)
    assert "model" in doc and "reasoning_effort" in doc
    assert "personality" not in doc and "agents_docs" not in doc  # never set: absent


def test_every_published_key_names_a_field() -> None:
    assert set(PUBLISHED_KEYS) <= set(world_fields())
    assert len(set(PUBLISHED_KEYS.values())) == len(PUBLISHED_KEYS)

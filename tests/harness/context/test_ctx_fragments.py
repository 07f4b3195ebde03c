"""Every fragment kind round-trips (render → classify gives the same kind and values), and
Codex-CLI-shaped samples (synthetic, modelled on the shapes in codex-wire.md §4) classify."""

from __future__ import annotations

from typing import Any

import pytest

from ctxscope.harness.context import FRAGMENT_KINDS, FRAGMENT_SPECS, classify_text, render_fragment

# Several value sets per kind, including awkward characters, empty lists and multi-line text.
SAMPLES: dict[str, list[dict[str, Any]]] = {
    "permissions": [
        {
            "sandbox_mode": "workspace-write",
            "approval_policy": "on-request",
            "network_enabled": False,
            "writable_roots": ["/repo"],
        },
        {
            "sandbox_mode": "workspace-write",
            "approval_policy": "on-request",
            "network_enabled": False,
            "writable_roots": ["/repo", "/tmp"],
            "sandbox_enforcement": "The operating system enforces this: writes outside the writable roots "
            "fail (Landlock); there is no network, loopback included (a network namespace).",
        },
        {
            "sandbox_mode": "read-only",
            "approval_policy": "never",
            "network_enabled": True,
            "writable_roots": [],
        },
        {
            "sandbox_mode": "danger-full-access",
            "approval_policy": "untrusted",
            "network_enabled": True,
            "writable_roots": ["/a b/c", "/tmp/x.y"],
        },
    ],
    "collaboration_mode": [
        {"mode": "plan", "text": "Plan first.\n\n- explore\n- ask"},
        {"mode": "default", "text": "Just do it."},
    ],
    "skills_catalog": [
        {"skills": []},
        {
            "skills": [
                {
                    "name": "demo-skill",
                    "description": "Shows a demo: step by step.",
                    "path": "/s/demo/SKILL.md",
                },
                {"name": "lint", "description": "Run linters (ruff)", "path": "/s/lint/SKILL.md"},
            ]
        },
    ],
    "model_switch": [
        {"previous_model": "gpt-a", "model": "gpt-b", "instructions": "You are B.\n\nBe brief."},
    ],
    "personality": [{"text": "Friendly and terse."}],
    "agents_md": [
        {"path": "/repo", "project": "Use tabs.\n"},
        {"path": None, "global": "# Global\n\nBe nice.\n"},
        {
            "path": "/repo/pkg",
            "global": "# Global\n\nBe nice.\n",
            "project": "Root rules.\n\n\nPkg rules\nline 2",  # two files, the first newline-terminated
        },
    ],
    "agents_md_replaced": [
        {"path": "/repo/pkg", "project": "New rules.\n"},
    ],
    "agents_md_removed": [{}],
    "user_instructions": [{"text": "Old style AGENTS text."}],
    "environment_context": [
        {
            "cwd": "/repo",
            "shell": "bash",
            "current_date": "2026-11-29",
            "timezone": "UTC",
            "workspace_roots": ["/repo"],
            "writable_roots": ["/repo", "/tmp", "/tmp/a&b"],
        },
        {"cwd": "/repo/pkg"},
        {"current_date": "2026-11-30", "timezone": "UTC", "workspace_roots": ["/r"], "writable_roots": []},
        {"workspace_roots": ["/r"], "writable_roots": ["/"]},
        {"network_enabled": True, "writable_roots": []},  # the older form with a network element
        {"cwd": "/x <y>"},
    ],
    "deferred_tools": [
        {"namespaces": [{"name": "multi_agent_v1", "description": "Sub-agents."}]},
        {"removed": [{"name": "multi_agent_v1", "description": "Sub-agents."}]},
    ],
    "selected_skill": [
        {
            "name": "demo-skill",
            "path": "/s/demo/SKILL.md",
            "text": "---\nname: demo-skill\n---\n\nDo the demo.",
        },
    ],
    "goal": [{"objective": "Ship the <parser> & tests"}],
    "turn_aborted": [{"reason": "The user interrupted the turn."}],
    "user_shell_command": [
        {"command": "ls -la", "exit_code": 0, "duration_s": 0.1234, "output": "a\nb"},
        {"command": "false", "exit_code": 1, "duration_s": 2.0, "output": ""},
    ],
    "plan_mode_reminder": [
        {"event": "entered", "text": "You are planning."},
        {"event": "recovery", "text": "Plan so far:\n1. x"},
    ],
    "compaction_summary": [{"summary": "We fixed A.\n\nNext: B."}],
    "compaction_prompt": [{"source": "ctxscope"}],
    "goal_status": [
        {"objective": 'Port the "parser" & ship', "status": "active"},
        {"status": "paused"},
    ],
    "goal_continuation": [
        {"tokens_used": 0, "token_budget": None, "tokens_remaining": None},
        {"tokens_used": 4700, "token_budget": 30000, "tokens_remaining": 25300},
    ],
}

ROLE = {spec.kind: spec.roles[0] for spec in FRAGMENT_SPECS}


def test_every_kind_has_samples() -> None:
    assert set(SAMPLES) == set(FRAGMENT_KINDS)


@pytest.mark.parametrize(
    ("kind", "values"), [(kind, values) for kind, many in SAMPLES.items() for values in many]
)
def test_render_then_classify_round_trips(kind: str, values: dict[str, Any]) -> None:
    text = render_fragment(kind, values)
    match = classify_text(text, ROLE[kind])
    assert match is not None, text
    assert match.kind == kind
    assert match.values == values
    # Whitespace around a part does not change what it is.
    again = classify_text("\n" + text + "\n", "any")
    assert again is not None and again.kind == kind


@pytest.mark.parametrize("kind", FRAGMENT_KINDS)
def test_only_its_own_kind_accepts_a_render(kind: str) -> None:
    text = render_fragment(kind, SAMPLES[kind][0])
    accepting = [spec.kind for spec in FRAGMENT_SPECS if spec.recognise(text) is not None]
    assert accepting == [kind]


def test_role_mismatch_and_plain_text_are_not_fragments() -> None:
    env = render_fragment("environment_context", {"cwd": "/r"})
    assert classify_text(env, "developer") is None
    assert classify_text("please fix <environment_context> parsing", "user") is None
    assert classify_text("", "user") is None
    assert classify_text("# AGENTS.md instructions for /r but no body", "user") is None


def test_labels() -> None:
    cases = {
        ("permissions", 0): "permissions",
        ("collaboration_mode", 0): "collaboration_mode:plan",
        ("agents_md", 0): "agents_md:/repo",
        ("agents_md_replaced", 0): "agents_md_replaced:/repo/pkg",
        ("agents_md_removed", 0): "agents_md_removed",
        ("environment_context", 0): "environment_context:cwd=/repo",
        ("environment_context", 2): "environment_context:current_date=2026-11-30,timezone=UTC,filesystem",
        ("environment_context", 4): "environment_context:network=true,filesystem",
        ("selected_skill", 0): "selected_skill:demo-skill",
        ("model_switch", 0): "model_switch:gpt-b",
        ("plan_mode_reminder", 1): "plan_mode_reminder:recovery",
    }
    for (kind, index), label in cases.items():
        match = classify_text(render_fragment(kind, SAMPLES[kind][index]), "any")
        assert match is not None and match.label == label


def test_codex_style_tools_notice_is_recognised() -> None:
    # Synthetic text in the shape Codex 0.169 sends (heading line, `- name: description` entries).
    offered = "<tools>\nDeferred namespaces:\n- agents_v1: Spawn helpers.\n</tools>"
    match = classify_text(offered, "developer")
    assert match is not None and match.label == "tools"
    assert match.values == {"namespaces": [{"name": "agents_v1", "description": "Spawn helpers."}]}
    withdrawn = "<tools>\nRemoved deferred namespaces:\n- agents_v1: Spawn helpers.\nNone remain.\n</tools>"
    match = classify_text(withdrawn, "developer")
    assert match is not None and match.label == "tools:removed"
    assert classify_text("please list the <tools> you have", "developer") is None

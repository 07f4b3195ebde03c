"""Codex-CLI-shaped samples, old and new, classify into the same kinds and typed values.

The samples are synthetic: they follow the wrapper shapes listed in codex-wire.md §4 (markers,
child elements, key phrases) with made-up wording, not Codex's prompt text.
"""

from __future__ import annotations

from typing import Any

import pytest

from ctxscope.harness.context import classify_text

CODEX_SAMPLES: list[tuple[str, str, str, dict[str, Any]]] = [
    (
        "developer",
        "<permissions instructions>\nSandboxing text. `sandbox_mode` is `workspace-write`: you may edit "
        "in cwd. Network access is restricted.\n Approval text. `approval_policy` is `never`: do not ask.\n"
        " The writable roots are `/repo`, `/tmp`.\n</permissions instructions>",
        "permissions",
        {
            "sandbox_mode": "workspace-write",
            "network_enabled": False,
            "approval_policy": "never",
            "writable_roots": ["/repo", "/tmp"],
        },
    ),
    (
        "developer",
        "<permissions instructions>\n`sandbox_mode` is `read-only`: look only. Network access is enabled.\n"
        "# Escalation Requests\nAsk with `require_escalated` when needed.\n</permissions instructions>",
        "permissions",
        {"sandbox_mode": "read-only", "network_enabled": True, "approval_policy": "on-request"},
    ),
    (
        "developer",
        "<permissions instructions>\nSandbox words. `sandbox_mode` is `read-only`: reading only. "
        "Network access is restricted.\nApproval policy is currently never. More words.\n"
        "</permissions instructions>",
        "permissions",
        {
            "sandbox_mode": "read-only",
            "network_enabled": False,
            "approval_policy": "never",
            "writable_roots": [],
        },
    ),
    (
        "developer",
        "<collaboration_mode># Plan Mode (Conversational)\n\nYou plan before acting.\n</collaboration_mode>",
        "collaboration_mode",
        {"mode": "plan"},
    ),
    (
        "developer",
        "<skills_instructions>\n## Skills\nSome explanation.\n### Available skills\n"
        "- demo-skill: A demo skill. (file: /home/u/.codex/skills/demo-skill/SKILL.md)\n"
        "- other: Another one (file: /s/other/SKILL.md)\n### How to use skills\n- more text\n"
        "</skills_instructions>",
        "skills_catalog",
        {
            "skills": [
                {
                    "name": "demo-skill",
                    "description": "A demo skill.",
                    "path": "/home/u/.codex/skills/demo-skill/SKILL.md",
                },
                {"name": "other", "description": "Another one", "path": "/s/other/SKILL.md"},
            ]
        },
    ),
    (
        "developer",
        "<skills_instructions>\n## Skills\nIntro.\n### Skill roots\n- `r0`: /home/u/.codex/skills\n"
        "### Available skills\n- demo-skill: A demo. (file: r0/demo-skill/SKILL.md)\n"
        "- remote: Runs elsewhere (executor package: pkg-1)\n- bare: No locator at all\n"
        "### How to use skills\n- Trigger rules: use a skill when named.\n</skills_instructions>",
        "skills_catalog",
        {
            "skills": [
                # the locator resolved through the roots table
                {
                    "name": "demo-skill",
                    "description": "A demo.",
                    "path": "/home/u/.codex/skills/demo-skill/SKILL.md",
                },
                {"name": "remote", "description": "Runs elsewhere", "path": "pkg-1"},
                {"name": "bare", "description": "No locator at all"},
            ]
        },
    ),
    (
        "user",
        "<skill>\n<name>demo-skill</name>\n<path>/s/demo/SKILL.md</path>\n"
        "---\nname: demo-skill\n---\nbody\n</skill>",
        "selected_skill",
        {"name": "demo-skill", "path": "/s/demo/SKILL.md"},
    ),
    (
        "user",
        "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nGlobal words\n\n--- project-doc ---\n\n"
        "Project words\n</INSTRUCTIONS>",
        "agents_md",
        {"path": "/repo", "global": "Global words", "project": "Project words"},
    ),
    (
        "user",
        "These AGENTS.md instructions replace all previously provided AGENTS.md instructions.\n\n"
        "# AGENTS.md instructions for /repo/pkg\n\n<INSTRUCTIONS>\npkg words\n</INSTRUCTIONS>",
        "agents_md_replaced",
        {"path": "/repo/pkg", "project": "pkg words"},
    ),
    (
        "user",
        "# AGENTS.md instructions for /repo/pkg\n\n<INSTRUCTIONS>\nThese AGENTS.md instructions replace all "
        "previously provided AGENTS.md instructions.\n\npkg words\n</INSTRUCTIONS>",
        "agents_md_replaced",
        {"path": "/repo/pkg"},
    ),
    (
        "user",
        "# AGENTS.md instructions\n\n<AGENTS_MD_OBSERVATION>\nprovenance note\n</AGENTS_MD_OBSERVATION>\n\n"
        "<INSTRUCTIONS>\nThe previously provided AGENTS.md instructions no longer apply.\n</INSTRUCTIONS>",
        "agents_md_removed",
        {},
    ),
    (
        "user",
        "<user_instructions>\n\nLegacy rules\n\n</user_instructions>",
        "user_instructions",
        {"text": "Legacy rules"},
    ),
    (
        "user",
        "<environment_context>\n  <cwd>/repo</cwd>\n  <shell>zsh</shell>\n"
        "  <current_date>2026-08-01</current_date>\n"
        "  <timezone>Europe/Paris</timezone>\n"
        '  <network enabled="true"><allowed>a.com,b.org</allowed></network>\n'
        "  <filesystem><workspace_roots><root>/repo</root></workspace_roots>"
        '<permission_profile type="managed">'
        '<file_system type="restricted"><entry access="read"><special>:root</special></entry>'
        '<entry access="write"><special>:workspace_roots</special></entry>'
        '<entry access="write"><special>:slash_tmp</special></entry>'
        '<entry access="write"><path>/data &amp; more</path></entry>'
        '<entry access="deny" escalatable="false"><path>/repo/.git</path></entry>'
        "</file_system></permission_profile></filesystem>\n</environment_context>",
        "environment_context",
        {
            "cwd": "/repo",
            "shell": "zsh",
            "current_date": "2026-08-01",
            "timezone": "Europe/Paris",
            "network_enabled": True,
            "network_allowed": ["a.com", "b.org"],
            "workspace_roots": ["/repo"],
            "writable_roots": ["/repo", "/tmp", "/data & more"],
        },
    ),
    (
        "user",
        "<environment_context>\n  <cwd>/r</cwd>\n"
        "  <filesystem><workspace_roots><root>/r</root></workspace_roots>"
        '<permission_profile type="managed"><file_system type="restricted"><entry access="read">'
        "<special>:root</special></entry></file_system></permission_profile></filesystem>\n"
        "</environment_context>",
        "environment_context",
        {"cwd": "/r", "workspace_roots": ["/r"], "writable_roots": []},
    ),
    (
        "user",
        '<environment_context>\n  <filesystem><permission_profile type="disabled">'
        '<file_system type="unrestricted" /></permission_profile></filesystem>\n</environment_context>',
        "environment_context",
        {"writable_roots": ["/"]},
    ),
    (
        "user",
        "<environment_context>\n  <cwd>/old</cwd>\n  <approval_policy>on-request</approval_policy>\n"
        "  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
        "  <writable_roots>\n    <root>/old</root>\n  </writable_roots>\n"
        "  <shell>bash</shell>\n</environment_context>",
        "environment_context",
        {
            "cwd": "/old",
            "approval_policy": "on-request",
            "sandbox_mode": "workspace-write",
            "network_enabled": False,
            "writable_roots": ["/old"],
            "shell": "bash",
        },
    ),
    (
        "user",
        "<environment_context>\n  <current_date>2026-08-02</current_date>\n</environment_context>",
        "environment_context",
        {"current_date": "2026-08-02"},
    ),
    (
        "developer",
        "<model_switch>\nYou were on another model before. Follow these now:\n\n"
        "New model prompt.\n</model_switch>",
        "model_switch",
        {"instructions": "New model prompt."},
    ),
    (
        "developer",
        "<personality_spec>\nBe pragmatic.\n</personality_spec>",
        "personality",
        {"text": "Be pragmatic."},
    ),
    (
        "user",
        '<codex_internal_context source="goal">\nKeep going.\n<objective>Make tests pass</objective>\n'
        "Budget text.\n</codex_internal_context>",
        "goal",
        {"objective": "Make tests pass"},
    ),
    (
        "user",
        "<goal_context>\nLegacy goal steering\n</goal_context>",
        "goal",
        {"text": "Legacy goal steering"},
    ),
    (
        "user",
        "<turn_aborted>\nThe user stopped it on purpose.\n</turn_aborted>",
        "turn_aborted",
        {"reason": "The user stopped it on purpose."},
    ),
    (
        "user",
        "<turn_aborted>\n  <turn_id>t1</turn_id>\n  <reason>interrupted</reason>\n</turn_aborted>",
        "turn_aborted",
        {"reason": "interrupted"},
    ),
    (
        "user",
        "<user_shell_command>\n<command>\necho hi\n</command>\n<result>\nExit code: 0\n"
        "Duration: 0.0100 seconds\n"
        "Output:\nhi\n</result>\n</user_shell_command>",
        "user_shell_command",
        {"command": "echo hi", "exit_code": 0, "duration_s": 0.01, "output": "hi"},
    ),
    (
        "user",
        "Another language model started to solve this problem and produced a summary "
        "of its thinking process. Use it.\nSummary: did X, next Y.",
        "compaction_summary",
        {"summary": "Summary: did X, next Y."},
    ),
]


@pytest.mark.parametrize(("role", "text", "kind", "expected"), CODEX_SAMPLES)
def test_codex_form_classifies(role: str, text: str, kind: str, expected: dict[str, Any]) -> None:
    match = classify_text(text, role)
    assert match is not None, text
    assert match.kind == kind
    for key, value in expected.items():
        assert match.values[key] == value, key
    if not expected:
        assert match.values == {}


def test_codex_base_prompt_and_prompts_are_plain() -> None:
    assert classify_text("You are Codex, a coding agent. Be helpful.", "developer") is None
    assert classify_text("The tests fail, please look", "user") is None
    assert classify_text("Another day, another bug", "user") is None

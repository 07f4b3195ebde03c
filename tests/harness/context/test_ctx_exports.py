"""The curated public surface of `ctxscope.harness.context` (other packages code against these names)."""

from __future__ import annotations

import ctxscope.harness.context as context

EXPECTED = {
    "FRAGMENT_KINDS",
    "FRAGMENT_SPECS",
    "ChangeStyle",
    "StateField",
    "WorldField",
    "WorldMeaning",
    "fragment_specs",
    "register_fragment",
    "takes",
    "unregister_fragment",
    "world_fields",
    "world_meaning",
    "ContextSettings",
    "FragmentMatch",
    "FragmentSpec",
    "base_prompt_item",
    "SkillInfo",
    "WorldState",
    "classify_text",
    "collect_world_state",
    "context_items",
    "context_update_items",
    "diff_world_state",
    "discover_agents_docs",
    "discover_skills",
    "find_repo_root",
    "get_spec",
    "initial_context_items",
    "item_label",
    "layout_labels",
    "mentioned_skill_names",
    "message_item",
    "model_switch_items",
    "plan_mode_reminder_item",
    "compaction_summary_item",
    "render_fragment",
    "selected_skill_items",
    "turn_aborted_item",
    "user_message_item",
    "user_shell_command_item",
}


def test_public_names() -> None:
    assert set(context.__all__) == EXPECTED
    for name in EXPECTED:
        assert getattr(context, name) is not None


def test_fragment_kinds_cover_the_contract() -> None:
    required = {
        "permissions",
        "collaboration_mode",
        "skills_catalog",
        "agents_md",
        "agents_md_replaced",
        "agents_md_removed",
        "environment_context",
        "selected_skill",
        "model_switch",
        "goal",
        "goal_status",
        "goal_continuation",
        "compaction_prompt",
        "turn_aborted",
        "user_shell_command",
        "personality",
        "plan_mode_reminder",
        "compaction_summary",
        "user_instructions",
        "deferred_tools",
    }
    assert set(context.FRAGMENT_KINDS) == required
    assert len(context.FRAGMENT_KINDS) == len(set(context.FRAGMENT_KINDS))

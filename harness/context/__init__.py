"""Context building, the heart of the harness: fragments (defined once: render + recognise),
the typed world state, AGENTS.md and skill discovery, and the items of each request.

    fragments     FragmentSpec registry and classify_text (the inspector uses these too)
    world_state   WorldState snapshot, SkillInfo, diff_world_state
    world_fields  every world-state field (WorldState's and fragment-declared) with its StateField
    collect       ContextSettings and collect_world_state (reads AGENTS.md and skills)
    agents_md     AGENTS.md discovery (global file + repo root down to cwd)
    skills        SKILL.md discovery and `$name` selection
    builder       initial items, append-only update items, model switch and per-turn items
    labels        compact layout labels for golden snapshots

Names load on first use, so the inspector's fragment recognisers come
without the context builder and the AGENTS.md/skill discovery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:  # what the names resolve to, for type checkers and editors
    from ctxscope.harness.context._spec import WorldMeaning, takes
    from ctxscope.harness.context._state_field import ChangeStyle, StateField
    from ctxscope.harness.context.agents_md import discover_agents_docs, find_repo_root
    from ctxscope.harness.context.builder import (
        base_prompt_item,
        compaction_summary_item,
        context_items,
        context_update_items,
        initial_context_items,
        message_item,
        model_switch_items,
        plan_mode_reminder_item,
        turn_aborted_item,
        user_message_item,
        user_shell_command_item,
    )
    from ctxscope.harness.context.collect import ContextSettings, collect_world_state
    from ctxscope.harness.context.fragments import (
        FRAGMENT_KINDS,
        FRAGMENT_SPECS,
        FragmentMatch,
        FragmentSpec,
        classify_text,
        fragment_specs,
        get_spec,
        register_fragment,
        render_fragment,
        unregister_fragment,
    )
    from ctxscope.harness.context.labels import item_label, layout_labels
    from ctxscope.harness.context.skills import discover_skills, mentioned_skill_names, selected_skill_items
    from ctxscope.harness.context.world_state import SkillInfo, WorldState, diff_world_state

# Loaded now, not on first use: the function `world_fields` shares its name with its module, and importing
# the module would set the package attribute to the module before `__getattr__` could answer.
from ctxscope.harness.context.world_fields import WorldField, world_fields, world_meaning

__all__ = [
    "FRAGMENT_KINDS",
    "FRAGMENT_SPECS",
    "ChangeStyle",
    "ContextSettings",
    "FragmentMatch",
    "FragmentSpec",
    "SkillInfo",
    "StateField",
    "WorldField",
    "WorldMeaning",
    "WorldState",
    "base_prompt_item",
    "classify_text",
    "collect_world_state",
    "compaction_summary_item",
    "context_items",
    "context_update_items",
    "diff_world_state",
    "discover_agents_docs",
    "discover_skills",
    "find_repo_root",
    "fragment_specs",
    "get_spec",
    "initial_context_items",
    "item_label",
    "layout_labels",
    "mentioned_skill_names",
    "message_item",
    "model_switch_items",
    "plan_mode_reminder_item",
    "register_fragment",
    "render_fragment",
    "selected_skill_items",
    "takes",
    "turn_aborted_item",
    "unregister_fragment",
    "user_message_item",
    "user_shell_command_item",
    "world_fields",
    "world_meaning",
]

_WHERE = {
    "WorldMeaning": "ctxscope.harness.context._spec",
    "takes": "ctxscope.harness.context._spec",
    "ChangeStyle": "ctxscope.harness.context._state_field",
    "StateField": "ctxscope.harness.context._state_field",
    "discover_agents_docs": "ctxscope.harness.context.agents_md",
    "find_repo_root": "ctxscope.harness.context.agents_md",
    "base_prompt_item": "ctxscope.harness.context.builder",
    "compaction_summary_item": "ctxscope.harness.context.builder",
    "context_items": "ctxscope.harness.context.builder",
    "context_update_items": "ctxscope.harness.context.builder",
    "initial_context_items": "ctxscope.harness.context.builder",
    "message_item": "ctxscope.harness.context.builder",
    "model_switch_items": "ctxscope.harness.context.builder",
    "plan_mode_reminder_item": "ctxscope.harness.context.builder",
    "turn_aborted_item": "ctxscope.harness.context.builder",
    "user_message_item": "ctxscope.harness.context.builder",
    "user_shell_command_item": "ctxscope.harness.context.builder",
    "ContextSettings": "ctxscope.harness.context.collect",
    "collect_world_state": "ctxscope.harness.context.collect",
    "FRAGMENT_KINDS": "ctxscope.harness.context.fragments",
    "FRAGMENT_SPECS": "ctxscope.harness.context.fragments",
    "FragmentMatch": "ctxscope.harness.context.fragments",
    "FragmentSpec": "ctxscope.harness.context.fragments",
    "classify_text": "ctxscope.harness.context.fragments",
    "fragment_specs": "ctxscope.harness.context.fragments",
    "get_spec": "ctxscope.harness.context.fragments",
    "register_fragment": "ctxscope.harness.context.fragments",
    "render_fragment": "ctxscope.harness.context.fragments",
    "unregister_fragment": "ctxscope.harness.context.fragments",
    "item_label": "ctxscope.harness.context.labels",
    "layout_labels": "ctxscope.harness.context.labels",
    "discover_skills": "ctxscope.harness.context.skills",
    "mentioned_skill_names": "ctxscope.harness.context.skills",
    "selected_skill_items": "ctxscope.harness.context.skills",
    "SkillInfo": "ctxscope.harness.context.world_state",
    "WorldState": "ctxscope.harness.context.world_state",
    "diff_world_state": "ctxscope.harness.context.world_state",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)

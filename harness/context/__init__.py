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
"""

from __future__ import annotations

from ._spec import WorldMeaning, takes
from ._state_field import ChangeStyle, StateField
from .agents_md import discover_agents_docs, find_repo_root
from .builder import (
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
from .collect import ContextSettings, collect_world_state
from .fragments import (
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
from .labels import item_label, layout_labels
from .skills import discover_skills, mentioned_skill_names, selected_skill_items
from .world_fields import WorldField, world_fields, world_meaning
from .world_state import SkillInfo, WorldState, diff_world_state

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

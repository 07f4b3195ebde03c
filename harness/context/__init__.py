"""Context building, the heart of the harness: fragments (defined once: render + recognise),
the typed world state, AGENTS.md and skill discovery, and the items of each request.

    fragments     FragmentSpec registry, classify_text (also used by the inspector)
    world_state   WorldState snapshot, ContextSettings, collect_world_state, diff_world_state
    agents_md     AGENTS.md discovery (global file + repo root down to cwd)
    skills        SKILL.md discovery and `$name` selection
    builder       initial items, append-only update items, model switch and per-turn items
    labels        compact layout labels for golden snapshots
"""

from __future__ import annotations

from .fragments import (
    FRAGMENT_KINDS,
    FRAGMENT_SPECS,
    FragmentMatch,
    FragmentSpec,
    classify_text,
    render_fragment,
)

__all__ = [
    "FRAGMENT_KINDS",
    "FRAGMENT_SPECS",
    "FragmentMatch",
    "FragmentSpec",
    "classify_text",
    "render_fragment",
]

"""The fragment registry: every context fragment kind, defined once, and `classify_text`.

The harness renders context with these specs; the inspector recognises the same fragments (and
the Codex CLI's current and older forms) in any recorded request with `classify_text`.
`register_fragment` adds a kind at run time (an extension, or a test); `FRAGMENT_SPECS` stays the
built-in set, `fragment_specs()` is the registry as it is now.
"""

from __future__ import annotations

from ._field_table import field_table
from ._spec import FragmentMatch, FragmentSpec, Values
from .agents_fragments import (
    AGENTS_MD_REMOVED_SPEC,
    AGENTS_MD_REPLACED_SPEC,
    AGENTS_MD_SPEC,
    USER_INSTRUCTIONS_SPEC,
)
from .compaction_fragments import COMPACTION_PROMPT_SPEC
from .developer import (
    COLLABORATION_SPEC,
    DEFERRED_TOOLS_SPEC,
    MODEL_SWITCH_SPEC,
    PERMISSIONS_SPEC,
    PERSONALITY_SPEC,
)
from .environment import SPEC as ENVIRONMENT_SPEC
from .goal_fragments import GOAL_CONTINUATION_SPEC, GOAL_STATUS_SPEC
from .skill_fragments import SELECTED_SKILL_SPEC, SKILLS_CATALOG_SPEC
from .turn_fragments import (
    COMPACTION_SUMMARY_SPEC,
    GOAL_SPEC,
    PLAN_MODE_REMINDER_SPEC,
    TURN_ABORTED_SPEC,
    USER_SHELL_COMMAND_SPEC,
)

__all__ = [
    "FRAGMENT_KINDS",
    "FRAGMENT_SPECS",
    "FragmentMatch",
    "FragmentSpec",
    "classify_text",
    "fragment_specs",
    "get_spec",
    "register_fragment",
    "render_fragment",
    "unregister_fragment",
]

# Order matters only where two recognisers could both accept a text; they are disjoint today
# (each is anchored on its own opening marker), so this is also the documentation order.
FRAGMENT_SPECS: tuple[FragmentSpec, ...] = (
    PERMISSIONS_SPEC,
    COLLABORATION_SPEC,
    SKILLS_CATALOG_SPEC,
    MODEL_SWITCH_SPEC,
    PERSONALITY_SPEC,
    DEFERRED_TOOLS_SPEC,
    AGENTS_MD_SPEC,
    AGENTS_MD_REPLACED_SPEC,
    AGENTS_MD_REMOVED_SPEC,
    USER_INSTRUCTIONS_SPEC,
    ENVIRONMENT_SPEC,
    SELECTED_SKILL_SPEC,
    GOAL_STATUS_SPEC,
    GOAL_CONTINUATION_SPEC,
    GOAL_SPEC,
    TURN_ABORTED_SPEC,
    USER_SHELL_COMMAND_SPEC,
    PLAN_MODE_REMINDER_SPEC,
    COMPACTION_SUMMARY_SPEC,
    COMPACTION_PROMPT_SPEC,
)

FRAGMENT_KINDS: tuple[str, ...] = tuple(spec.kind for spec in FRAGMENT_SPECS)
# The live registry: a new tuple on every change, so a reader holding one sees a consistent set.
_specs: tuple[FragmentSpec, ...] = FRAGMENT_SPECS
_BY_KIND = {spec.kind: spec for spec in FRAGMENT_SPECS}


def fragment_specs() -> tuple[FragmentSpec, ...]:
    """Every registered kind: the built-in ones in documentation order, then registered ones."""
    return _specs


def register_fragment(spec: FragmentSpec) -> None:
    """Add a fragment kind, recognised after the built-in kinds (its texts must open with a `<`
    marker tag, like every built-in kind). ValueError, and nothing registered, when the kind exists
    or it declares a world-state field that is already defined (`world_fields`)."""
    global _specs
    if spec.kind in _BY_KIND:
        raise ValueError(f"fragment kind {spec.kind!r} is already registered")
    field_table((*_specs, spec))  # ValueError: a field it declares is already defined
    _specs = (*_specs, spec)
    _BY_KIND[spec.kind] = spec


def unregister_fragment(kind: str) -> None:
    """Remove a kind added with `register_fragment`; the built-in kinds stay."""
    global _specs
    if kind in FRAGMENT_KINDS:
        raise ValueError(f"fragment kind {kind!r} is built in and cannot be removed")
    _specs = tuple(spec for spec in _specs if spec.kind != kind)
    _BY_KIND.pop(kind, None)


def get_spec(kind: str) -> FragmentSpec:
    """The spec for `kind`; KeyError names the known kinds."""
    try:
        return _BY_KIND[kind]
    except KeyError:
        known = ", ".join(spec.kind for spec in _specs)
        raise KeyError(f"unknown fragment kind {kind!r}; known: {known}") from None


def render_fragment(kind: str, values: Values) -> str:
    """Render one fragment of `kind` from its values (ctxscope's form)."""
    return get_spec(kind).render(values)


def classify_text(text: str, role: str) -> FragmentMatch | None:
    """Recognise one `input_text` part sent with `role` ("developer", "user", or "any").

    Returns None for plain text (a prompt, a base prompt, an assistant message). Never raises on
    odd input: a recogniser that trips on malformed text counts as no match.
    """
    if not text or text.lstrip()[:1] not in ("<", "#", "T", "A", "Y"):
        # Every known form starts with a marker tag, an AGENTS.md heading, or (older Codex / a
        # Codex summary / Codex's compaction prompt) a sentence starting "These"/"The"/"Another"/
        # "You"; skip the rest cheaply.
        return None
    for spec in _specs:
        try:
            match = spec.match(text, role)
        except (KeyError, ValueError, IndexError, TypeError):
            continue
        if match is not None:
            return match
    return None

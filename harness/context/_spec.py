"""The types every fragment family is built from: `FragmentSpec` (how to render and recognise
one kind of context fragment), `WorldMeaning` (what it means for the world state) and
`FragmentMatch` (what recognising a text produced).

Kept apart from `fragments.py` so the family modules can import them without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FragmentMatch", "FragmentSpec", "Values", "WorldMeaning", "takes"]

Values = dict[str, Any]
Projection = Callable[[Values, Mapping[str, Any]], Values]


@dataclass(frozen=True)
class WorldMeaning:
    """What one fragment kind means for the world state, declared with the fragment.

    project(values, state) returns the fields the fragment sets, by field name, from the fragment's
    recognised `values` and the state folded so far (None for a field not yet set); a fragment that
    amends a value (one more AGENTS.md directory) reads the old value from `state`. Field names are
    `WorldState`'s, or ones declared in `fields`: name → `Annotated[type, StateField(...)]`, for
    values only the context carries (which skill the user selected). `replaces` names the fields
    the fragment restates whole, so a change it makes reads as a replacement, not an edit.
    """

    project: Projection
    fields: Mapping[str, Any] = field(default_factory=dict)
    replaces: tuple[str, ...] = ()


def takes(*names: str) -> Projection:
    """A projection that copies the named values the fragment carries (its names are field names)."""

    def project(values: Values, state: Mapping[str, Any]) -> Values:
        return {name: values[name] for name in names if name in values}

    return project


@dataclass(frozen=True)
class FragmentMatch:
    """A recognised fragment.

    kind:   one of `FRAGMENT_KINDS` (e.g. "environment_context").
    values: the typed world-state values the fragment carries (e.g. {"cwd": "/repo"}).
    label:  a compact label for layouts (e.g. "environment_context:cwd=/repo").
    """

    kind: str
    values: Values = field(default_factory=dict)
    label: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (for reports)."""
        return {"kind": self.kind, "values": self.values, "label": self.label}


@dataclass(frozen=True)
class FragmentSpec:
    """One fragment kind, defined once: the harness renders with it, the inspector recognises with it.

    recognise(text) returns the values when `text` is this fragment (any known form: ctxscope's
    own render, current and older Codex CLI renders), else None. render(values) produces
    ctxscope's form, and recognise(render(v)) == v for the values render accepts.
    """

    kind: str
    roles: tuple[str, ...]
    recognise: Callable[[str], Values | None]
    render: Callable[[Values], str]
    label: Callable[[Values], str]
    description: str = ""
    world: WorldMeaning | None = None
    """None: the fragment says nothing about the world state (a reminder, a shell command)."""
    codex_label: str | None = None
    """The label Codex 0.169 itself gives such a part (`content_item_kinds` in its per-item passthrough
    metadata, e.g. `environments.environment_context`); the inspector checks its recognisers against it."""

    def match(self, text: str, role: str | None = None) -> FragmentMatch | None:
        """Recognise `text` sent with `role` (None or "any" accepts every role)."""
        if role not in (None, "any") and role not in self.roles:
            return None
        values = self.recognise(text)
        if values is None:
            return None
        return FragmentMatch(self.kind, values, self.label(values))

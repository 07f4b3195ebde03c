"""The world-state field table of a set of fragment specs: `WorldState`'s own fields, then the fields
the specs declare in their `WorldMeaning`, checked for one definition per field.

A pure function of the specs, below both the fragment registry (which checks a new kind with it
before registering) and `world_fields` (which builds the table of the live registry).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

from ._spec import FragmentSpec
from ._state_field import StateField
from .world_state import WorldState

__all__ = ["WorldField", "field_table"]


@dataclass(frozen=True)
class WorldField:
    """One world-state field: its name, bare type, `StateField` marker and who defines it."""

    name: str
    annotation: Any
    """The field's type without `Annotated` (e.g. `list[str]`, `str | None`)."""
    marker: StateField
    """How its change is told; a field declared without one reads as a plain value named as itself."""
    declared_by: str | None = None
    """None: a `WorldState` field; else the fragment kind that declared it first."""


def _marker(name: str, metadata: list[Any] | tuple[Any, ...]) -> StateField:
    return next((m for m in metadata if isinstance(m, StateField)), StateField(name.replace("_", " ")))


def _declared(name: str, annotation: Any, kind: str) -> WorldField:
    if get_origin(annotation) is Annotated:
        base, *metadata = get_args(annotation)
        return WorldField(name, base, _marker(name, metadata), kind)
    return WorldField(name, annotation, _marker(name, ()), kind)


def field_table(specs: Iterable[FragmentSpec]) -> dict[str, WorldField]:
    """Every field by name, `WorldState`'s in field order, then declared ones in `specs` order.

    ValueError when a fragment declares a field `WorldState` has, or two kinds declare one field
    with different types (one field, one definition).
    """
    fields = {
        name: WorldField(name, info.annotation, _marker(name, info.metadata))
        for name, info in WorldState.model_fields.items()
    }
    declared: dict[str, Any] = {}
    for spec in specs:
        for name, annotation in (spec.world.fields if spec.world else {}).items():
            if name in WorldState.model_fields:
                raise ValueError(f"fragment kind {spec.kind!r} declares {name!r}, a WorldState field")
            if name in declared and declared[name] != annotation:
                raise ValueError(f"fragment kind {spec.kind!r} redefines world-state field {name!r}")
            if name not in declared:
                declared[name] = annotation
                fields[name] = _declared(name, annotation, spec.kind)
    return fields

"""Every world-state field in one table: `WorldState`'s own fields, then the fields fragment kinds
declare in their `WorldMeaning` (values only the context carries, such as the selected skills).

This is the vocabulary the inspector folds recognised fragments into and describes changes from;
a fragment kind added with its spec (and, if needed, its declared fields) appears here with no
other edit. The table follows the live fragment registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

from ._spec import WorldMeaning
from ._state_field import StateField
from .fragments import fragment_specs, get_spec
from .world_state import WorldState

__all__ = ["WorldField", "world_fields", "world_meaning"]


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


_cache: tuple[tuple[Any, ...], dict[str, WorldField]] | None = None


def world_fields() -> dict[str, WorldField]:
    """Every field by name, `WorldState`'s in field order, then declared ones in registry order.

    ValueError when a fragment declares a field `WorldState` has, or two kinds declare one field
    with different types (one field, one definition).
    """
    global _cache
    specs = fragment_specs()
    if _cache is not None and _cache[0] is specs:
        return _cache[1]
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
    _cache = (specs, fields)
    return fields


def world_meaning(kind: str) -> WorldMeaning | None:
    """What fragments of `kind` mean for the world state; None for a kind with no meaning or unknown."""
    try:
        return get_spec(kind).world
    except KeyError:
        return None

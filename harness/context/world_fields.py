"""Every world-state field in one table: `WorldState`'s own fields, then the fields fragment kinds
declare in their `WorldMeaning` (values only the context carries, such as the selected skills).

This is the vocabulary the inspector folds recognised fragments into and describes changes from;
a fragment kind added with its spec (and, if needed, its declared fields) appears here with no
other edit. The table follows the live fragment registry (built by `_field_table.field_table`).
"""

from __future__ import annotations

from typing import Any

from ._field_table import WorldField, field_table
from ._spec import WorldMeaning
from .fragments import fragment_specs, get_spec

__all__ = ["WorldField", "world_fields", "world_meaning"]

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
    fields = field_table(specs)
    _cache = (specs, fields)
    return fields


def world_meaning(kind: str) -> WorldMeaning | None:
    """What fragments of `kind` mean for the world state; None for a kind with no meaning or unknown."""
    try:
        return get_spec(kind).world
    except KeyError:
        return None

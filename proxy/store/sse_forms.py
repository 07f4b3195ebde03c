"""The stored forms of a format-1.2 SSE stream, shared by the writer (`derive`) and the reader (`rebuild`).

Stored stream (`{"layout": L, "events": [form, ...]}`); each form is one of
  {"data": ...} / {"json": ...}       as in format 1.1 (a literal event)
  {"d": template}                     the event object with markers (below)
  {"same": {key: value}, "n": N}      the previous event's template with these keys replaced; an
                                      integer `sequence_number` counts on by one; `n` sets the length
                                      of the template's `$n` marker (`same` left out when empty)
  {"n": [N1, ...], "vary": {K: [v1, ...]}}  several such events in a row (a run of deltas), the i-th
                                      with `n` Ni and `same` {K: vi, ...} (`vary` left out when empty)
plus `event` when the SSE event name is not the JSON `type` (null: no `event:` line) and `wire`.
Markers (top-level values of a template only):
  {"$r": PATH}                        the value at PATH in the response ([] = the response itself)
  {"$r": PATH, "$n": N}               the next N characters of that text (a cursor per PATH)
  {"$r": PATH, "$k": [keys], "$set": {...}}  that object with these keys in this order, $set's values
                                      replacing the response's
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = [
    "COUNT",
    "ENCODERS",
    "KEYS",
    "LAYOUTS",
    "MARK",
    "SEQ",
    "SET",
    "TEXT_FIELDS",
    "exact_bytes",
    "is_marker",
    "render_event",
    "value_at",
]

MARK = "$r"
COUNT, KEYS, SET = "$n", "$k", "$set"
SEQ = "sequence_number"
TEXT_FIELDS = ("text", "arguments", "input", "refusal")

_STYLES: dict[str, dict[str, Any]] = {
    "spaced-ascii": {"ensure_ascii": True},  # Python's json.dumps defaults
    "spaced": {"ensure_ascii": False},
    "compact-ascii": {"separators": (",", ":"), "ensure_ascii": True},
    "indent2": {"indent": 2, "ensure_ascii": False},
    "indent2-ascii": {"indent": 2, "ensure_ascii": True},
}
LAYOUTS = ("compact", *_STYLES)
"""JSON layouts an event's data may be rebuilt in (see `json_layout` for whole bodies)."""
# one encoder per layout: `json.dumps` would build one per call, a third of a spaced stream's read time
ENCODERS = {name: json.JSONEncoder(**style) for name, style in _STYLES.items()}


def render_event(value: Any, layout: str) -> str:
    """`value` serialised in `layout`: compact as orjson writes it, the others as `json.dumps` does."""
    if layout == "compact":
        return orjson.dumps(value).decode("utf-8")
    encoder = ENCODERS.get(layout)
    if encoder is None:
        raise ValueError(f"unknown SSE JSON layout {layout!r}")
    return encoder.encode(value)


def exact_bytes(value: Any) -> bytes | None:
    """Bytes that are equal iff two values are equal with the same key order; None if not JSON."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return None


def value_at(root: Any, path: list[Any]) -> Any:
    """The value at `path` (keys and indices); KeyError/IndexError/TypeError if there is none."""
    value = root
    for step in path:
        if isinstance(value, list) and isinstance(step, int) and step >= 0:
            value = value[step]
        elif isinstance(value, dict) and isinstance(step, str):
            value = value[step]
        else:
            raise KeyError(step)
    return value


def is_marker(part: Any) -> bool:
    return isinstance(part, dict) and MARK in part

"""How a JSON body was laid out on the wire, so a replay can send the very bytes received.

A recording keeps a non-streaming JSON body parsed (`response_body`), which loses its whitespace and
escaping. `layout_of(raw, value)` names the standard serialisation that reproduces `raw` exactly
(compact or spaced separators, 2-space indent, ASCII escapes or not, a trailing newline);
`render(value, layout)` writes it again. A body no layout reproduces keeps its raw text instead.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["LAYOUTS", "layout_of", "render"]

_STYLES: dict[str, dict[str, Any]] = {
    "compact": {"separators": (",", ":"), "ensure_ascii": False},
    "compact-ascii": {"separators": (",", ":"), "ensure_ascii": True},
    "spaced": {"ensure_ascii": False},
    "spaced-ascii": {"ensure_ascii": True},
    "indent2": {"indent": 2, "ensure_ascii": False},
    "indent2-ascii": {"indent": 2, "ensure_ascii": True},
}
LAYOUTS = tuple(name + end for name in _STYLES for end in ("", "+nl"))
"""Every layout name: a style, optionally followed by `+nl` (a trailing newline)."""


def render(value: Any, layout: str) -> bytes:
    """`value` serialised in `layout` (one of `LAYOUTS`); ValueError for an unknown layout."""
    style, newline = layout.removesuffix("+nl"), layout.endswith("+nl")
    if style not in _STYLES:
        raise ValueError(f"unknown JSON layout {layout!r}")
    return (json.dumps(value, **_STYLES[style]) + ("\n" if newline else "")).encode("utf-8")


def layout_of(raw: bytes, value: Any) -> str | None:
    """The layout whose rendering of `value` is exactly `raw`, or None."""
    head = raw[:256]
    indented = b"\n " in head
    order = sorted(LAYOUTS, key=lambda name: ("indent" not in name) if indented else ("indent" in name))
    for layout in order:
        try:
            if render(value, layout) == raw:
                return layout
        except (TypeError, ValueError):
            return None
    return None

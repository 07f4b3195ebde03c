"""Diffs of the non-item parts of a request: instructions (text), tools (by name), parameters.

Tools are diffed by the one tool-list diff (`ctxscope.proxy.replay.tool_diff`, which strict replay's
matcher uses too): matched by name, so reordering alone is not a change, and a changed tool is told
field by field, a changed text as its old and new lines.

Some clients change tools and parameters inside the input instead of the body: `additional_tools`
items (Responses-Lite) add or redefine tools mid-history, `configuration_update` items change a
parameter in-band (`{"type": "configuration_update", "reasoning": {"effort": "high"}}`). The
effective tools and parameters (`effective_tools`, `effective_params`) fold those items over the body,
so they are diffed as the tools and parameter changes they are.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from ctxscope.proxy.replay.tool_diff import ToolDiff, tool_name, tools_by_name
from ctxscope.proxy.replay.tool_diff import diff_tools as tools_diff

__all__ = [
    "ADDITIONAL_TOOLS",
    "CONFIGURATION_UPDATE",
    "IN_BAND_ITEM_TYPES",
    "PARAM_KEYS",
    "ToolDiff",
    "effective_tools",
    "in_band_items",
    "instructions_diff",
    "instructions_text",
    "params_diff",
    "params_of",
    "tool_name",
    "tools_by_name",
    "tools_diff",
]

PARAM_KEYS = (
    "model",
    "reasoning",
    "include",
    "store",
    "metadata",
    "tool_choice",
    "parallel_tool_calls",
    "text",
    "service_tier",
    "stream",
    "max_output_tokens",
    "temperature",
    "top_p",
    "truncation",
)


def instructions_text(value: Any) -> str:
    """Instructions as text: a string as sent, nothing as "", anything else (a hand-written list of
    messages) as indented JSON so it can still be diffed and counted."""
    if value is None or isinstance(value, str):
        return value or ""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def instructions_diff(before: Any, after: Any, context: int = 2) -> list[str]:
    """Unified diff lines of two instruction texts (empty when equal)."""
    old, new = instructions_text(before), instructions_text(after)
    if old == new:
        return []
    return list(
        difflib.unified_diff(old.splitlines(), new.splitlines(), "before", "after", lineterm="", n=context)
    )


def params_of(body: dict[str, Any], items: Sequence[Any] | None = None) -> dict[str, Any]:
    """The request parameters that shape behaviour (not the context), with the `configuration_update`
    items of `items` (the full input) applied in order over the body's."""
    params = {k: body[k] for k in PARAM_KEYS if k in body}
    for item in items or []:
        if not (isinstance(item, dict) and item.get("type") == CONFIGURATION_UPDATE):
            continue
        for key, value in item.items():
            if key not in PARAM_KEYS:
                continue
            old = params.get(key)
            params[key] = {**old, **value} if isinstance(old, dict) and isinstance(value, dict) else value
    return params


def params_diff(
    before: dict[str, Any],
    after: dict[str, Any],
    before_items: Sequence[Any] | None = None,
    after_items: Sequence[Any] | None = None,
) -> dict[str, tuple[Any, Any]]:
    """Parameter name → (before, after) for every effective parameter that differs."""
    old, new = params_of(before, before_items), params_of(after, after_items)
    return {k: (old.get(k), new.get(k)) for k in PARAM_KEYS if old.get(k) != new.get(k)}


CONFIGURATION_UPDATE = "configuration_update"
ADDITIONAL_TOOLS = "additional_tools"
IN_BAND_ITEM_TYPES = frozenset({CONFIGURATION_UPDATE, ADDITIONAL_TOOLS})
"""Input items that change the request's tools or parameters rather than its context."""


def in_band_items(items: Iterable[Any]) -> list[Any]:
    """The `additional_tools` and `configuration_update` items of `items`, in order: all that
    `effective_tools` and `params_of` read of an input, so a thread can carry them from turn to turn
    instead of each turn scanning its whole history again."""
    return [i for i in items if isinstance(i, dict) and i.get("type") in IN_BAND_ITEM_TYPES]


def effective_tools(body: dict[str, Any], items: Sequence[Any] | None = None) -> list[Any]:
    """The body's tools, then the tools of each `additional_tools` item of `items` (the full input) in
    order; a later definition of a name replaces the earlier one."""
    by_name: dict[str, Any] = {}
    extra: list[Any] = []
    for item in items or []:
        if (
            isinstance(item, dict)
            and item.get("type") == ADDITIONAL_TOOLS
            and isinstance(item.get("tools"), list)
        ):
            extra += item["tools"]
    body_tools = body.get("tools")
    for tool in [*(body_tools if isinstance(body_tools, list) else []), *extra]:
        by_name[tool_name(tool)] = tool
    return list(by_name.values())

"""What routes a request to a prompt cache besides its prefix: the model and the parameters rendered
ahead of the conversation. One definition for the per-turn prediction (`attribution`) and the cache
forensics (`cache`): a change to any of them means nothing of the previous request is served cached.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["KEYED_PARAMETERS", "keyed_change", "keyed_value"]

KEYED_PARAMETERS = ("model", "reasoning.effort", "text.verbosity", "tool_choice", "parallel_tool_calls")
"""Parameters that choose the model or are rendered before the conversation: a change breaks the prefix."""


def keyed_value(body: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path of a request body (None when absent)."""
    node: Any = body
    for part in path.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def keyed_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> str | None:
    """The first keyed parameter whose value differs between two request bodies, or None."""
    for path in KEYED_PARAMETERS:
        if keyed_value(old, path) != keyed_value(new, path):
            return path
    return None

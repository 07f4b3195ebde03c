"""Compact layout labels of a request's `input[]`, one line per item, for golden snapshots and
the inspector's `show` view (in the spirit of Codex's own context snapshot tests):

    developer[<instructions>]
    developer[<skills_catalog>, <permissions>]
    user[<agents_md:$ROOT>, <environment_context:cwd=$ROOT>]
    user: "fix the failing test"
    function_call exec_command
    function_call_output
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .fragments import classify_text

__all__ = ["item_label", "layout_labels"]

_TEXT_PARTS = ("input_text", "output_text", "text")


def _quote(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return '"' + flat.replace('"', '\\"') + '"'


def _part_label(part: Any, role: str, limit: int) -> tuple[str, bool]:
    """(label, is_fragment) for one content part."""
    if not isinstance(part, dict):
        return _quote(str(part), limit), False
    kind = part.get("type")
    if kind in _TEXT_PARTS and isinstance(part.get("text"), str):
        match = classify_text(part["text"], role)
        if match is not None:
            return f"<{match.label}>", True
        return _quote(part["text"], limit), False
    return f"<{kind}>", True


def item_label(item: Any, limit: int = 60) -> str:
    """Label of one input item (unknown item types are shown by their type, never an error)."""
    if not isinstance(item, dict):
        return f"unknown {type(item).__name__}"
    kind = item.get("type", "message" if "role" in item else None)
    if kind == "message":
        role = str(item.get("role", "?"))
        content = item.get("content")
        if isinstance(content, str):
            content = [{"type": "input_text", "text": content}]
        if not isinstance(content, list) or not content:
            return f"{role}[]"
        labels = [_part_label(part, role, limit) for part in content]
        if len(labels) == 1 and not labels[0][1]:
            return f"{role}: {labels[0][0]}"
        return f"{role}[{', '.join(label for label, _ in labels)}]"
    if kind in ("function_call", "custom_tool_call"):
        name = item.get("name", "?")
        namespace = item.get("namespace")
        return f"{kind} {namespace + '.' if namespace else ''}{name}"
    return str(kind)


def _is_base_prompt(item: Any) -> bool:
    """input[0] as a developer message of plain text: the base prompt (Codex 0.169's placement)."""
    if not isinstance(item, dict) or item.get("type", "message") != "message":
        return False
    content = item.get("content")
    if item.get("role") != "developer":
        return False
    if not isinstance(content, list) or not content:
        return False
    texts = [p.get("text") if isinstance(p, dict) else None for p in content]
    return all(isinstance(t, str) and classify_text(t, "developer") is None for t in texts)


def layout_labels(items: list[dict[str, Any]], root: Path | None = None, limit: int = 60) -> list[str]:
    """One label per item; with `root`, absolute paths under it are shown as `$ROOT/...`."""
    labels = [item_label(item, limit) for item in items]
    if labels and _is_base_prompt(items[0]):
        labels[0] = "developer[<instructions>]"
    if root is None:
        return labels
    # Longest spelling first so a resolved path is not half-replaced by a shorter alias.
    roots = sorted({str(root), str(Path(root).resolve())}, key=len, reverse=True)
    out = []
    for label in labels:
        for spelled in roots:
            # Only whole path prefixes: /tmp/r must not turn /tmp/rx into $ROOTx.
            label = re.sub(re.escape(spelled) + r"(?![\w.-])", "$ROOT", label)
        out.append(label)
    return out

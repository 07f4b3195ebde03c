"""The one diff of two tool lists, by name: what strict replay reports and what every inspector view shows.

Tools are matched by name (a namespace's members as `namespace.member`), so reordering the list alone
is not a change (`ToolDiff.reordered` says it happened: it breaks the cached prefix). A tool both lists
hold is compared field by field (`FieldChange`, by JSON path: `description`,
`parameters.properties.login.description`); a list of plain values (`required`, an `enum`) is a set in
meaning, so only its members count. A changed text is shown as its changed lines, old then new
(`line_diff`, the line diff the inspector uses for fragments), so a tool whose description was
rewritten between two harness versions reads as the old and the new sentence.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["FieldChange", "ToolDiff", "diff_tools", "line_diff", "tool_name", "tools_by_name"]


def tool_name(tool: Any) -> str:
    """The name a tool is matched by: its name, else its type (`web_search`)."""
    if isinstance(tool, dict):
        return str(tool.get("name") or tool.get("type") or "?")
    return str(tool)


def tools_by_name(tools: Any) -> dict[str, Any]:
    """A tools list by name, in order; namespace members become `namespace.member`."""
    out: dict[str, Any] = {}
    for tool in tools if isinstance(tools, list) else []:
        name = tool_name(tool)
        if isinstance(tool, dict) and tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):
            out[name] = {k: v for k, v in tool.items() if k != "tools"}
            for member in tool["tools"]:
                out[f"{name}.{tool_name(member)}"] = member
        else:
            out[name] = tool
    return out


def line_diff(old: str, new: str) -> list[str]:
    """The changed lines of two texts, `-old` then `+new` (a unified diff without context); for texts
    that differ only in whitespace at their line ends, both texts whole (as Python literals)."""
    changed = [
        line
        for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return changed or [f"-{old!r}"[:200], f"+{new!r}"[:200]]


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


@dataclass(frozen=True)
class FieldChange:
    """One field of a tool that differs between the two lists (`old`/`new` None where it is absent)."""

    path: str
    """The field's JSON path inside the tool: `description`, `parameters.properties.login.description`."""
    change: Literal["added", "removed", "changed"]
    old: Any = None
    new: Any = None

    def lines(self) -> list[str]:
        """The change as text: `PATH:` then the changed lines (`-old`, `+new`) for a text, else
        `PATH: old → new` (or `+PATH: new`, `-PATH: old`) on one line."""
        if self.change == "added":
            return [f"+{self.path}: {_compact(self.new)}"]
        if self.change == "removed":
            return [f"-{self.path}: {_compact(self.old)}"]
        if isinstance(self.old, str) and isinstance(self.new, str):
            return [f"{self.path}:", *line_diff(self.old, self.new)]
        return [f"{self.path}: {_compact(self.old)} → {_compact(self.new)}"]


@dataclass
class ToolDiff:
    """Tools added, removed and changed, matched by name."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changes: dict[str, list[FieldChange]] = field(default_factory=dict)
    """Each changed tool's changed fields, in path order."""
    reordered: bool = False
    """Same tools in a different order: not a change of content, but it breaks the cached prefix."""

    @property
    def changed(self) -> dict[str, list[str]]:
        """Each changed tool's changes as text lines (`FieldChange.lines`), what every view prints."""
        return {name: [line for c in changes for line in c.lines()] for name, changes in self.changes.items()}

    @property
    def empty(self) -> bool:
        """True when the two tool sets are the same up to order."""
        return not (self.added or self.removed or self.changes)


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _is_set(value: list[Any]) -> bool:
    return all(isinstance(v, str | int | float | bool) or v is None for v in value)


def _set_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _fields(old: Any, new: Any, path: str, out: list[FieldChange]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                out.append(FieldChange(_join(path, key), "removed", old=old[key]))
        for key in new:
            if key not in old:
                out.append(FieldChange(_join(path, key), "added", new=new[key]))
            else:
                _fields(old[key], new[key], _join(path, key), out)
        return
    if isinstance(old, list) and isinstance(new, list):
        if _is_set(old) and _is_set(new):  # `required`, an `enum`: members count, not their order
            if sorted(map(_set_key, old)) != sorted(map(_set_key, new)):
                out.append(FieldChange(path, "changed", old, new))
            return
        if len(old) == len(new):
            for index, (a, b) in enumerate(zip(old, new, strict=True)):
                _fields(a, b, _join(path, index), out)
            return
    if old != new or type(old) is not type(new):
        out.append(FieldChange(path or "tool", "changed", old, new))


def diff_tools(before: Any, after: Any) -> ToolDiff:
    """Compare two tools lists by name (see the module docstring)."""
    old, new = tools_by_name(before), tools_by_name(after)
    result = ToolDiff([n for n in new if n not in old], [n for n in old if n not in new])
    for name in old:
        if name in new and old[name] != new[name]:
            changes: list[FieldChange] = []
            _fields(old[name], new[name], "", changes)
            if changes:
                result.changes[name] = changes
    result.reordered = result.empty and list(old) != list(new)
    return result

"""`list_dir`: show a directory tree to a bounded depth and entry count.

Directories end with `/`, symbolic links with `@` (and are not followed). `.git` is listed but not
entered. Read-only and confined to the workspace roots unless the sandbox is danger-full-access.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.tools.base import ToolError, ToolKind, ToolResult, function_spec, parse_args
from ctxscope.harness.tools.call_context import ToolContext
from ctxscope.harness.tools.sandbox import resolve_path

DEFAULT_DEPTH = 2
MAX_DEPTH = 10
DEFAULT_LIMIT = 200
MAX_LIMIT = 2000
_NOT_ENTERED = frozenset({".git"})


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    path: str = "."
    depth: int = Field(default=DEFAULT_DEPTH, ge=1)
    limit: int = Field(default=DEFAULT_LIMIT, ge=1)


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    with os.scandir(directory) as it:
        return sorted(it, key=lambda e: e.name)


class ListDir:
    """The `list_dir` tool."""

    name = "list_dir"
    kind: ToolKind = "function"

    def spec(self) -> dict[str, Any]:
        """Wire spec."""
        return function_spec(
            self.name,
            "Lists a directory as an indented tree: directories end with '/', symlinks with '@'.",
            {
                "path": {
                    "type": "string",
                    "description": "Directory, relative to the working directory (default '.').",
                },
                "depth": {
                    "type": "number",
                    "description": f"How many levels to show (default {DEFAULT_DEPTH}).",
                },
                "limit": {
                    "type": "number",
                    "description": f"Most entries to show (default {DEFAULT_LIMIT}).",
                },
            },
            [],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Walk depth-first in name order until depth or limit is reached."""
        a = parse_args(self.name, _Args, args)
        root = resolve_path(ctx, a.path, write=False)
        if not root.exists():
            raise ToolError(f"list_dir: {a.path} does not exist")
        if not root.is_dir():
            raise ToolError(f"list_dir: {a.path} is not a directory; use read_file to read it")
        depth = min(a.depth, MAX_DEPTH)
        limit = min(a.limit, MAX_LIMIT)
        lines = [f"Absolute path: {root}"]
        shown = 0
        truncated = False
        # An explicit stack keeps deep trees off the recursion limit.
        stack: list[tuple[Path, int]] = [(root, 0)]
        pending: list[list[os.DirEntry[str]]] = []
        try:
            pending.append(_entries(root))
        except OSError as e:
            raise ToolError(f"list_dir: cannot read {a.path}: {e.strerror}") from e
        while pending:
            if not pending[-1]:
                pending.pop()
                stack.pop()
                continue
            entry = pending[-1].pop(0)
            level = stack[-1][1]
            if shown >= limit:
                truncated = True
                break
            is_link = entry.is_symlink()
            is_dir = not is_link and entry.is_dir()
            mark = "@" if is_link else "/" if is_dir else ""
            lines.append(f"{'  ' * level}{entry.name}{mark}")
            shown += 1
            if is_dir and level + 1 < depth and entry.name not in _NOT_ENTERED:
                try:
                    children = _entries(Path(entry.path))
                except OSError:
                    lines.append(f"{'  ' * (level + 1)}[cannot read]")
                    continue
                stack.append((Path(entry.path), level + 1))
                pending.append(children)
        if shown == 0:
            lines.append("(empty directory)")
        if truncated:
            lines.append(f"[... more than {limit} entries; list a subdirectory or lower depth ...]")
        return ToolResult("\n".join(lines))

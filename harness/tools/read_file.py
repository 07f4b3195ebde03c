"""`read_file`: read a text file as numbered lines (`L<n>: text`), a window at a time.

Read-only and confined to the workspace roots unless the sandbox is danger-full-access. Long lines
are cut, and a note at the end says where to continue when the file has more lines.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.tools.base import ToolError, ToolKind, ToolResult, function_spec, parse_args
from ctxscope.harness.tools.call_context import ToolContext
from ctxscope.harness.tools.sandbox import resolve_path

DEFAULT_LIMIT = 2000
MAX_LIMIT = 5000
MAX_LINE_CHARS = 500
_SNIFF_BYTES = 8192


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    path: str = Field(min_length=1)
    offset: int = Field(default=1, ge=1)
    limit: int = Field(default=DEFAULT_LIMIT, ge=1)


class ReadFile:
    """The `read_file` tool."""

    name = "read_file"
    kind: ToolKind = "function"

    def spec(self) -> dict[str, Any]:
        """Wire spec."""
        return function_spec(
            self.name,
            f"Reads a text file and returns numbered lines ('L<n>: text'). "
            f"Lines longer than {MAX_LINE_CHARS} characters are cut.",
            {
                "path": {
                    "type": "string",
                    "description": "File path, relative to the working directory or absolute.",
                },
                "offset": {"type": "number", "description": "First line to return, 1-based (default 1)."},
                "limit": {
                    "type": "number",
                    "description": f"Most lines to return (default {DEFAULT_LIMIT}, max {MAX_LIMIT}).",
                },
            },
            ["path"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Return the requested window of lines."""
        a = parse_args(self.name, _Args, args)
        path = resolve_path(ctx, a.path, write=False)
        if not path.exists():
            raise ToolError(f"read_file: {a.path} does not exist")
        if path.is_dir():
            raise ToolError(f"read_file: {a.path} is a directory; use list_dir to see its entries")
        if not path.is_file():
            raise ToolError(
                f"read_file: {a.path} is not a regular file (device, socket or pipe); it was not read"
            )
        limit = min(a.limit, MAX_LIMIT)
        out: list[str] = []
        total = 0
        with path.open("rb") as f:
            if b"\0" in f.read(_SNIFF_BYTES):
                raise ToolError(f"read_file: {a.path} looks like a binary file; it was not read")
            f.seek(0)
            for total, raw in enumerate(f, start=1):  # noqa: B007 - total is used after the loop
                if a.offset <= total < a.offset + limit:
                    line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                    if len(line) > MAX_LINE_CHARS:
                        line = line[:MAX_LINE_CHARS] + f" [... {len(line) - MAX_LINE_CHARS} more characters]"
                    out.append(f"L{total}: {line}")
        if total == 0:
            return ToolResult(f"{a.path} is empty")
        if a.offset > total:
            raise ToolError(f"read_file: offset {a.offset} is past the end of {a.path} ({total} lines)")
        last = a.offset + len(out) - 1
        if last < total:
            out.append(f"[... {total - last} more lines; continue with offset={last + 1} ...]")
        return ToolResult("\n".join(out))

"""`grep_files`: search file contents for a regular expression, bounded in time and output.

Uses ripgrep when it is installed (it honours .gitignore), otherwise a Python scan that skips hidden
files and directories, binary files and very large files. Both print `path:line: text` with paths
relative to the searched directory, in path order, and stop at `limit` matches. Read-only and confined
to the workspace roots unless the sandbox is danger-full-access.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.tools.base import ToolError, ToolKind, ToolResult, function_spec, parse_args
from ctxscope.harness.tools.call_context import ToolContext
from ctxscope.harness.tools.sandbox import resolve_path

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
MAX_LINE_CHARS = 300
MAX_FILE_BYTES = 4_000_000
MAX_FILES = 20_000
RG_TIMEOUT_S = 30.0


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    pattern: str = Field(min_length=1)
    path: str = "."
    include: str | None = None
    limit: int = Field(default=DEFAULT_LIMIT, ge=1)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + " [...]"


def _walk(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name


def _rel(path: Path, root: Path) -> str:
    return path.name if root.is_file() else str(path.relative_to(root))


def python_grep(
    regex: re.Pattern[str], root: Path, include: str | None, limit: int
) -> tuple[list[str], str | None]:
    """Scan files under `root`; return match lines and a note when the scan stopped early."""
    found: list[str] = []
    for scanned, path in enumerate(_walk(root), start=1):
        if scanned > MAX_FILES:
            return found, f"stopped after scanning {MAX_FILES} files; narrow the path or include"
        rel = _rel(path, root)
        if include and not (fnmatch.fnmatch(path.name, include) or fnmatch.fnmatch(rel, include)):
            continue
        try:
            # Regular files only: reading a pipe or device could block forever.
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
            if regex.search(line):
                found.append(f"{rel}:{number}: {_cut(line)}")
                if len(found) >= limit:
                    return found, f"stopped after {limit} matches; narrow the pattern or path"
    return found, None


def rg_grep(
    rg: str, pattern: str, root: Path, include: str | None, limit: int
) -> tuple[list[str], str | None]:
    """Run ripgrep; return match lines and a note when it stopped early."""
    cmd = [rg, "--line-number", "--no-heading", "--with-filename", "--color", "never", "--sort", "path"]
    if include:
        cmd += ["--glob", include]
    target = root.name if root.is_file() else "."
    cmd += ["-e", pattern, "--", target]
    cwd = root.parent if root.is_file() else root
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=RG_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as e:
        raise ToolError(f"grep_files: the search took longer than {RG_TIMEOUT_S:g} s; narrow the path") from e
    if proc.returncode == 2 and not proc.stdout:
        msg = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise ToolError(f"grep_files: {msg[-1] if msg else 'ripgrep failed'}")
    found: list[str] = []
    for raw in proc.stdout.decode("utf-8", errors="replace").splitlines():
        rel, _, rest = raw.partition(":")
        number, _, text = rest.partition(":")
        found.append(f"{rel.removeprefix('./')}:{number}: {_cut(text)}")
        if len(found) >= limit:
            return found, f"stopped after {limit} matches; narrow the pattern or path"
    return found, None


class GrepFiles:
    """The `grep_files` tool. `use_rg=False` forces the Python scan (tests, reproducibility)."""

    name = "grep_files"
    kind: ToolKind = "function"

    def __init__(self, *, use_rg: bool = True) -> None:
        self.rg = shutil.which("rg") if use_rg else None

    def spec(self) -> dict[str, Any]:
        """Wire spec."""
        return function_spec(
            self.name,
            "Searches file contents for a regular expression; returns matching lines as 'path:line: text'.",
            {
                "pattern": {"type": "string", "description": "Regular expression to search for."},
                "path": {"type": "string", "description": "Directory or file to search (default '.')."},
                "include": {"type": "string", "description": "Glob the file names must match, e.g. '*.py'."},
                "limit": {
                    "type": "number",
                    "description": f"Most matches to return (default {DEFAULT_LIMIT}).",
                },
            },
            ["pattern"],
        )

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Search and format."""
        a = parse_args(self.name, _Args, args)
        root = resolve_path(ctx, a.path, write=False)
        if not root.exists():
            raise ToolError(f"grep_files: {a.path} does not exist")
        limit = min(a.limit, MAX_LIMIT)
        try:
            regex = re.compile(a.pattern)
        except re.error as e:
            raise ToolError(f"grep_files: pattern is not a valid regular expression: {e}") from e
        if self.rg:
            found, note = rg_grep(self.rg, a.pattern, root, a.include, limit)
        else:
            found, note = python_grep(regex, root, a.include, limit)
        if not found:
            return ToolResult(f"No matches for {a.pattern!r} in {a.path}" + (f" ({note})" if note else ""))
        if note:
            found.append(f"[... {note} ...]")
        return ToolResult("\n".join(found))

"""`apply_patch`: edit files with the Codex patch language, all of a patch or none of it.

A call goes through four stages, and only the last touches the disk:
1. parse the patch (`patch_parser`), 2. resolve every path against the workspace rules,
3. compute every file's new contents in memory (so a hunk that does not apply stops the call before
anything is written), 4. ask for approval when the rules say so, then write: new contents go to
temporary files next to their targets first, then are renamed into place; if any step fails the files
already replaced are restored from the originals held in memory.

The tool is offered as a freeform (custom) tool whose input is the raw patch, constrained by a Lark
grammar; a function-style call with `{"input": "<patch>"}` is accepted too.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxscope.harness.tools.base import ToolError, ToolKind, ToolResult, function_spec
from ctxscope.harness.tools.call_context import ApprovalRequest, ToolContext
from ctxscope.harness.tools.patch_parser import (
    PATCH_GRAMMAR,
    AddFile,
    DeleteFile,
    HunkMismatch,
    PatchSyntaxError,
    apply_hunks,
    parse_patch,
)
from ctxscope.harness.tools.sandbox import obtain_approval, resolve_path, write_approval_reason

DESCRIPTION = (
    "Edit files with a patch. Format: '*** Begin Patch', then file operations, then '*** End Patch'. "
    "Operations: '*** Add File: <path>' followed by the file's lines each prefixed with '+'; "
    "'*** Delete File: <path>'; '*** Update File: <path>' optionally followed by '*** Move to: <new path>', "
    "then hunks. A hunk starts with '@@' (optionally '@@ <a line near the change, e.g. a def or class>'), "
    "then lines prefixed with ' ' (unchanged context, about 3 lines before and after), '-' (remove) or "
    "'+' (add); '*** End of File' marks a hunk that ends the file. Paths are relative to the working "
    "directory. Either the whole patch applies or nothing is changed."
)


@dataclass
class _Change:
    """One line of the summary: A/M/D and the paths involved."""

    code: str
    path: Path
    source: Path | None = None  # set for moves


def _read_text(path: Path, raw: str) -> str:
    if not path.exists():
        raise ToolError(f"apply_patch failed: {raw} does not exist; use '*** Add File: {raw}' to create it")
    if not path.is_file():
        raise ToolError(f"apply_patch failed: {raw} is not a regular file")
    try:
        return path.read_bytes().decode("utf-8")  # bytes: keep CRLF line endings as they are
    except UnicodeDecodeError as e:
        raise ToolError(f"apply_patch failed: {raw} is not UTF-8 text and cannot be patched") from e


class _Plan:
    """The patch's effect computed in memory: path → new text, or None for deletion."""

    def __init__(self) -> None:
        self.final: dict[Path, str | None] = {}
        self.changes: list[_Change] = []
        self.mode_from: dict[Path, Path] = {}  # a moved file keeps its source's permissions

    def current(self, path: Path, raw: str) -> str:
        if path in self.final:
            text = self.final[path]
            if text is None:
                raise ToolError(f"apply_patch failed: {raw} was deleted earlier in this patch")
            return text
        return _read_text(path, raw)

    def exists(self, path: Path) -> bool:
        if path in self.final:
            return self.final[path] is not None
        return path.is_file()


def _display(path: Path, ctx: ToolContext) -> str:
    try:
        return str(path.relative_to(ctx.cwd))
    except ValueError:
        return str(path)


def plan_patch(text: str, ctx: ToolContext) -> _Plan:
    """Parse and compute the whole patch without writing; raise `ToolError` on any problem."""
    try:
        ops = parse_patch(text)
    except PatchSyntaxError as e:
        raise ToolError(f"apply_patch failed: invalid patch: {e}") from e
    plan = _Plan()
    for op in ops:
        path = resolve_path(ctx, op.path, write=True)
        if isinstance(op, AddFile):
            if path.is_dir():
                raise ToolError(f"apply_patch failed: cannot add {op.path}: it is a directory")
            plan.final[path] = op.contents
            plan.changes.append(_Change("A", path))
        elif isinstance(op, DeleteFile):
            if path.is_dir():
                raise ToolError(f"apply_patch failed: cannot delete {op.path}: it is a directory")
            if not plan.exists(path):
                raise ToolError(f"apply_patch failed: cannot delete {op.path}: it does not exist")
            plan.final[path] = None
            plan.changes.append(_Change("D", path))
        else:
            try:
                new = apply_hunks(plan.current(path, op.path), op.hunks, op.path)
            except HunkMismatch as e:
                raise ToolError(f"apply_patch failed, nothing was changed: {e}") from e
            if op.move_to is None:
                plan.final[path] = new
                plan.changes.append(_Change("M", path))
            else:
                dest = resolve_path(ctx, op.move_to, write=True)
                if dest.is_dir():
                    raise ToolError(f"apply_patch failed: cannot move to {op.move_to}: it is a directory")
                plan.final[path] = None
                plan.final[dest] = new
                if path.is_file():
                    plan.mode_from[dest] = path
                plan.changes.append(_Change("M", dest, source=path))
    return plan


def _commit(plan: _Plan) -> None:
    """Write the plan; on failure restore everything already written and re-raise."""
    originals: dict[Path, bytes | None] = {}
    temps: dict[Path, Path] = {}
    created_dirs: list[Path] = []
    done: list[Path] = []
    try:
        for path, text in plan.final.items():
            originals[path] = path.read_bytes() if path.is_file() else None
            if text is None:
                continue
            missing = [p for p in [path.parent, *path.parent.parents] if not p.exists()]
            for d in reversed(missing):
                d.mkdir()
                created_dirs.append(d)
            tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.ctxscope-tmp"
            # 0o666 through the umask, like any new file (mkstemp would make it 0o600).
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            temps[path] = tmp
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            mode_from = path if originals[path] is not None else plan.mode_from.get(path)
            if mode_from is not None:
                shutil.copymode(mode_from, tmp)
        for path, text in plan.final.items():
            if text is None:
                if originals[path] is not None:
                    path.unlink()
            else:
                os.replace(temps.pop(path), path)
            done.append(path)
    except BaseException:
        for path in done:
            original = originals[path]
            if original is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(original)
        for leftover in temps.values():
            leftover.unlink(missing_ok=True)
        for d in reversed(created_dirs):
            try:
                d.rmdir()
            except OSError:
                pass
        raise


class ApplyPatch:
    """The `apply_patch` tool."""

    name = "apply_patch"

    def __init__(self, kind: ToolKind = "custom") -> None:
        """`kind`: a freeform `custom` tool (Codex's default) or a JSON `function` with one `input`
        string, for models whose catalog entry says so."""
        self.kind: ToolKind = kind

    def spec(self) -> dict[str, Any]:
        """Wire spec: a freeform tool constrained by the patch grammar, or its function form."""
        if self.kind == "function":
            patch = {
                "type": "string",
                "description": "The whole patch, from *** Begin Patch to *** End Patch.",
            }
            return function_spec(self.name, DESCRIPTION, {"input": patch}, ["input"])
        return {
            "type": "custom",
            "name": self.name,
            "description": DESCRIPTION,
            "format": {"type": "grammar", "syntax": "lark", "definition": PATCH_GRAMMAR},
        }

    def handle(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Validate everything, ask if needed, then write all changes or none."""
        text = args.get("input", args.get("patch"))
        if not isinstance(text, str) or not text.strip():
            raise ToolError(
                'apply_patch needs the patch text (for a function call: {"input": "*** Begin Patch..."})'
            )
        start = time.monotonic()
        plan = plan_patch(text, ctx)
        summary_lines = []
        for c in plan.changes:
            line = f"{c.code} {_display(c.path, ctx)}"
            if c.source is not None:
                line += f" (moved from {_display(c.source, ctx)})"
            summary_lines.append(line)
        summary = "\n".join(summary_lines)
        note = None
        reason = write_approval_reason(ctx)
        if reason is not None:
            note = obtain_approval(ctx, ApprovalRequest(self.name, summary, reason, ctx.cwd))
        try:
            _commit(plan)
        except OSError as e:
            raise ToolError(f"apply_patch failed while writing ({e}); all changes were rolled back") from e
        out = f"Success. Updated the following files:\n{summary}\n"
        if note:
            out += f"Approval: {note}\n"
        # Codex 0.169 reports a patch like a command: exit code and wall time, then the output.
        head = f"Exit code: 0\nWall time: {time.monotonic() - start:.4f} seconds\nOutput:\n"
        return ToolResult(head + out)

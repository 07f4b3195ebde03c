"""Did a planning command change the workspace? A stat-based snapshot before and after.

Shell runs while planning (the model inspects with it), but a command can still write files. Before
each shell call plan mode takes a `Snapshot` of the workspace: path, size and mtime of every file,
skipping `.git` and common caches. After the call it compares; the paths that changed are reported
to the model in that call's output and to the user as a notice. None of the seed systems does this.

A workspace with more than `limit` files is not walked: in a git repository the check falls back to
`git status --porcelain` (before and after); elsewhere it says the check was skipped. The cost is
measured in `benchmarks/bench_plan_snapshot.py`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from harness.tools.git_guard import GitRun, run_git

__all__ = ["DEFAULT_LIMIT", "EXCLUDED_DIRS", "Snapshot", "changed_paths", "take_snapshot"]

DEFAULT_LIMIT = 20_000
EXCLUDED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "node_modules",
        ".cache",
        ".gradle",
        "target",
    }
)
"""Version-control data and build/test caches: changes there are what the plan rules allow."""


@dataclass(frozen=True)
class Snapshot:
    """What the workspace looked like: `files` (path → (size, mtime_ns)) or `git` status lines."""

    root: Path
    files: dict[str, tuple[int, int]] | None = None
    git: frozenset[str] | None = None
    skipped: str | None = None
    """Why no comparison is possible (too many files outside a git repository)."""
    notes: list[str] = field(default_factory=list)


class _TooMany(Exception):
    pass


def _walk(root: Path, limit: int) -> dict[str, tuple[int, int]]:
    files: dict[str, tuple[int, int]] = {}
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # unreadable or vanished mid-walk: nothing to compare there
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in EXCLUDED_DIRS:
                        stack.append(Path(entry.path))
                    continue
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            files[os.path.relpath(entry.path, root)] = (st.st_size, st.st_mtime_ns)
            if len(files) > limit:
                raise _TooMany
    return files


def _git_status(root: Path) -> GitRun:
    # Judged and hardened like every git the harness runs itself: a hostile config runs nothing.
    return run_git(root, "status", "--porcelain", "--untracked-files=all", timeout=30)


def take_snapshot(root: Path, limit: int = DEFAULT_LIMIT) -> Snapshot:
    """The workspace under `root` now (see the module docstring)."""
    try:
        return Snapshot(root, files=_walk(root, limit))
    except _TooMany:
        status = _git_status(root)
        if status.stdout is not None:
            return Snapshot(root, git=frozenset(status.stdout.splitlines()))
        if status.refused:
            return Snapshot(root, skipped=f"more than {limit:,} files, and {status.refused}")
        return Snapshot(root, skipped=f"more than {limit:,} files and not a git repository")


def changed_paths(before: Snapshot, after: Snapshot) -> list[str] | None:
    """Paths created, deleted or modified between the snapshots (sorted); None when not comparable."""
    if before.files is not None and after.files is not None:
        old, new = before.files, after.files
        return sorted({p for p in old.keys() | new.keys() if old.get(p) != new.get(p)})
    if before.git is not None and after.git is not None:
        # A line that appears or disappears names a path whose status changed.
        return sorted({line[3:] for line in before.git ^ after.git})
    return None

"""Did a planning command change the workspace? A stat-based snapshot before and after.

Shell runs while planning (the model inspects with it), but a command can still write files. Before
each shell call plan mode takes a `Snapshot` of the workspace: path, size and mtime of every file,
skipping `.git` and common caches. After the call it compares; the paths that changed are reported
to the model in that call's output and to the user as a notice. None of the seed systems does this.

Two more things are watched, since a planning command reaches them too:

- the repository's refs (`git show-ref --head`, through `git_guard.run_git`): a new commit, a new
  or moved tag or branch, a stash, a moved HEAD are reported as `git branch main moved 1a2b3c4..5d6e7f8`,
  `git tag v1 created`; `.git` itself is not walked;
- the regular files directly in the workspace's parent (`../x`) and in the temp directories (`/tmp`,
  `$TMPDIR`), owned by this user: a created or changed one is reported by its absolute path. Only
  the top level, and not a directory with more than `OUTSIDE_LIMIT` entries: "where it can". Another
  process of the same user writing there during the call shows up too, so these are reported apart
  (`changed_outside`) and say so; the OS sandbox is what keeps a planning command from writing
  outside (see the README).

A workspace with more than `limit` files is not walked: in a git repository the check falls back to
`git status --porcelain` (before and after); elsewhere it says the check was skipped. The cost is
measured in `benchmarks/bench_plan_snapshot.py`.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ctxscope.harness.tools.git_guard import GitRun, run_git

__all__ = [
    "DEFAULT_LIMIT",
    "EXCLUDED_DIRS",
    "OUTSIDE_LIMIT",
    "Snapshot",
    "changed_outside",
    "changed_paths",
    "take_snapshot",
]

DEFAULT_LIMIT = 20_000
OUTSIDE_LIMIT = 5_000
"""A directory outside the workspace with more entries than this is not watched."""
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
    refs: dict[str, str] = field(default_factory=dict)
    """The repository's refs (`HEAD`, `refs/heads/main`, `refs/tags/v1`, ...) → object id."""
    outside: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Absolute path → (size, mtime_ns) of this user's regular files at the top of `..` and the temp dirs."""


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


def _git_refs(root: Path) -> dict[str, str]:
    # show-ref reads refs only (no program from the config runs); it fails in a repository without
    # commits and outside one: no refs either way.
    done = run_git(root, "show-ref", "--head", timeout=30, judged=True)
    refs: dict[str, str] = {}
    for line in (done.stdout or "").splitlines():
        oid, _, name = line.partition(" ")
        if name:
            refs[name] = oid
    return refs


def _outside_dirs(root: Path) -> list[Path]:
    """`..` and the temp directories, as real paths, except any that is the workspace or inside it."""
    real = Path(os.path.realpath(root))
    candidates = [real.parent, Path(tempfile.gettempdir()), Path("/tmp")]
    found: list[Path] = []
    for directory in candidates:
        resolved = Path(os.path.realpath(directory))
        if resolved == real or real in resolved.parents or resolved in found or not resolved.is_dir():
            continue
        found.append(resolved)
    return found


def _outside_files(root: Path) -> dict[str, tuple[int, int]]:
    uid = os.getuid() if hasattr(os, "getuid") else None
    files: dict[str, tuple[int, int]] = {}
    for directory in _outside_dirs(root):
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        if len(entries) > OUTSIDE_LIMIT:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            # Regular files only: a directory's mtime moves whenever anything is made inside it.
            if stat.S_ISREG(st.st_mode) and (uid is None or st.st_uid == uid):
                files[entry.path] = (st.st_size, st.st_mtime_ns)
    return files


def take_snapshot(root: Path, limit: int = DEFAULT_LIMIT) -> Snapshot:
    """The workspace under `root` now (see the module docstring)."""
    refs, outside = _git_refs(root), _outside_files(root)
    try:
        return Snapshot(root, files=_walk(root, limit), refs=refs, outside=outside)
    except _TooMany:
        pass
    status = _git_status(root)
    if status.stdout is not None:
        return Snapshot(root, git=frozenset(status.stdout.splitlines()), refs=refs, outside=outside)
    if status.refused:
        reason = f"more than {limit:,} files, and {status.refused}"
    else:
        reason = f"more than {limit:,} files and not a git repository"
    return Snapshot(root, skipped=reason, refs=refs, outside=outside)


_REF_KINDS = (("refs/heads/", "branch "), ("refs/tags/", "tag "), ("refs/remotes/", "remote branch "))


def _ref_label(name: str) -> str:
    for prefix, kind in _REF_KINDS:
        if name.startswith(prefix):
            return "git " + kind + name[len(prefix) :]
    return "git " + ("stash" if name == "refs/stash" else name)


def _ref_changes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    changes: list[str] = []
    moved_to = {new[n] for n in new if n.startswith("refs/heads/") and old.get(n) != new[n]}
    for name in sorted(old.keys() | new.keys(), key=lambda n: (n != "HEAD", n)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        if name == "HEAD" and after in moved_to:
            continue  # a commit on the current branch: the branch line says it
        if before is None:
            changes.append(f"{_ref_label(name)} created")
        elif after is None:
            changes.append(f"{_ref_label(name)} deleted")
        else:
            changes.append(f"{_ref_label(name)} moved {before[:7]}..{after[:7]}")
    return changes


def changed_paths(before: Snapshot, after: Snapshot) -> list[str] | None:
    """What changed in the workspace between the snapshots: paths (sorted), then git ref changes;
    None when the files are not comparable and no ref changed."""
    workspace: list[str] | None = None
    if before.files is not None and after.files is not None:
        old, new = before.files, after.files
        workspace = sorted({p for p in old.keys() | new.keys() if old.get(p) != new.get(p)})
    elif before.git is not None and after.git is not None:
        # A line that appears or disappears names a path whose status changed.
        workspace = sorted({line[3:] for line in before.git ^ after.git})
    refs = _ref_changes(before.refs, after.refs)
    if workspace is None and not refs:
        return None
    return [*(workspace or []), *refs]


def changed_outside(before: Snapshot, after: Snapshot) -> list[str]:
    """This user's files next to the workspace or in the temp dirs, created or changed meanwhile
    (absolute paths, sorted). Told apart from the workspace's: another program may have written them."""
    return sorted(p for p, seen in after.outside.items() if before.outside.get(p) != seen)

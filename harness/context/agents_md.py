"""AGENTS.md discovery: the global file, then one document per directory from the repository
root down to the cwd (`AGENTS.override.md` wins over `AGENTS.md` in the same directory).

The repository root is the nearest ancestor of the cwd holding `.git` (a directory, or a file
for worktrees/submodules); without one only the cwd itself is searched. A file that is not UTF-8
is read with U+FFFD for each bad byte and a warning names it (the agent still starts: one stray
Latin-1 byte in a shared AGENTS.md should not stop every session); an unreadable file is a
`ConfigError` naming it.

Project documents share a byte budget (32 KiB by default, as in Codex): what does not fit is cut
at a character boundary and a warning says which file was cut. The global file is not counted.
"""

from __future__ import annotations

from pathlib import Path

from ctxscope.proxy.errors import ConfigError

__all__ = [
    "AGENTS_FILENAMES",
    "DEFAULT_MAX_BYTES",
    "discover_agents_docs",
    "find_repo_root",
    "read_instructions_file",
]

# Searched in this order in each directory; the first non-empty one is used.
AGENTS_FILENAMES: tuple[str, ...] = ("AGENTS.override.md", "AGENTS.md")
DEFAULT_MAX_BYTES = 32 * 1024


def find_repo_root(cwd: Path) -> Path | None:
    """Nearest directory at or above `cwd` that contains `.git`, else None."""
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return None


def read_instructions_file(path: Path, warnings: list[str] | None = None) -> str:
    """Text of an instructions file: UTF-8 (a BOM is dropped), CRLF normalised, otherwise raw (Codex
    sends the file as written, trailing newline included).

    Bytes that are not UTF-8 become U+FFFD and a warning naming the file goes to `warnings`."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ConfigError(
            f"cannot read {path}: {err.strerror or err}; fix its permissions or remove it"
        ) from err
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        text = raw.decode("utf-8-sig", errors="replace")
        if warnings is not None:
            warnings.append(
                f"{path} is not UTF-8 text (bad byte at offset {err.start}); read with replacement "
                "characters; save it as UTF-8"
            )
    return text.replace("\r\n", "\n")


def _chain(root: Path, cwd: Path) -> list[Path]:
    """Directories from `root` down to `cwd` inclusive; just [cwd] when cwd is outside root."""
    try:
        rel = cwd.relative_to(root)
    except ValueError:
        return [cwd]
    chain = [root]
    for part in rel.parts:
        chain.append(chain[-1] / part)
    return chain


def _cut(text: str, budget: int) -> str:
    """`text` cut to at most `budget` UTF-8 bytes, never inside a character."""
    return text.encode("utf-8")[: max(budget, 0)].decode("utf-8", errors="ignore").rstrip()


def discover_agents_docs(
    cwd: Path,
    repo_root: Path | None = None,
    global_file: Path | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    warnings: list[str] | None = None,
) -> list[tuple[str, str]]:
    """Active AGENTS.md documents as (absolute path, text), global first; empty files skipped.

    Project documents beyond `max_bytes` in total are cut (or left out) with a warning.
    """
    docs: list[tuple[str, str]] = []
    if global_file is not None and global_file.is_file():
        text = read_instructions_file(global_file, warnings)
        if text.strip():
            docs.append((str(global_file), text))
    root = repo_root if repo_root is not None else find_repo_root(cwd)
    budget = max_bytes
    for directory in _chain(root or cwd, cwd):
        for name in AGENTS_FILENAMES:
            candidate = directory / name
            if not candidate.is_file():
                continue
            text = read_instructions_file(candidate, warnings)
            if not text.strip():
                continue
            size = len(text.encode("utf-8"))
            if size > budget:
                text = _cut(text, budget)
                if warnings is not None:
                    shown = f"cut to {budget} bytes" if text else "left out"
                    limit = f"AGENTS.md files may hold {max_bytes} bytes in all"
                    warnings.append(f"{candidate} {shown}: {limit}; shorten them")
            # Once a file had to be cut the budget is spent, even if a split character left a byte.
            budget = 0 if size > budget else budget - size
            if text:
                docs.append((str(candidate), text))
            break
    return docs

"""Read-only git that runs no program the repository configures.

`git status`, `git diff`, `git log` and `git show` are on the known-safe list, but a repository's
own config can make them run programs: `core.fsmonitor`, `core.pager`/`pager.<cmd>`,
`diff.external`, per-driver `diff.<x>.textconv`/`command`, `filter.<x>.clean`/`smudge`/`process`
(which `git status` runs on racily-clean files) and `gpg.program` (signatures in `log`/`show`).
A cloned repository is not trusted, so two rules apply before git runs without approval:

- the repository's own config (scopes `local` and `worktree`, includes followed) must define none
  of those keys, or the command needs approval: per-driver keys cannot be switched off from the
  command line, and `git status` has no `--no-textconv`;
- the command runs through a shell function that adds `--no-pager`, `core.fsmonitor=false`,
  `core.hooksPath=/dev/null`, `log.showSignature=false`, and `--no-ext-diff --no-textconv` for
  `diff`/`log`/`show`, so even a key this check missed is not used. The output names the rewrite.

The user's global and system config are the user's own and are not checked.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

__all__ = [
    "GIT_HARDENING_NOTE",
    "POSIX_SHELLS",
    "harden_git_command",
    "repository_program_keys",
]

_RUNS_PROGRAM = re.compile(
    r"^(?:core\.fsmonitor|core\.pager|pager\..+|diff\.external|diff\..+\.(?:textconv|command)"
    r"|filter\..+\.(?:clean|smudge|process)|gpg\.(?:.+\.)?program)$"
)
_REPOSITORY_SCOPES = frozenset({"local", "worktree"})
_FALSE = frozenset({"false", "no", "off", "0", ""})
_CONFIG_TIMEOUT_S = 5.0

_GLOBAL_OPTIONS = "--no-pager -c core.fsmonitor=false -c core.hooksPath=/dev/null -c log.showSignature=false"
_DIFF_OPTIONS = "--no-ext-diff --no-textconv"
# Defined after the login profile, so it wins over any alias or function there. POSIX syntax (no
# `local`), so sh, dash, bash, zsh and ksh all read it; the known-safe check guarantees that the
# first argument is the subcommand.
_GIT_FUNCTION = (
    f'git() {{ case "$1" in diff|log|show) __ctx_sub=$1; shift; '
    f'command git {_GLOBAL_OPTIONS} "$__ctx_sub" {_DIFF_OPTIONS} "$@";; '
    f'*) command git {_GLOBAL_OPTIONS} "$@";; esac; }}'
)
POSIX_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh"})
GIT_HARDENING_NOTE = (
    f"read-only git ran as `git {_GLOBAL_OPTIONS} <subcommand>` (plus `{_DIFF_OPTIONS}` for "
    "diff/log/show), so no program from the repository's config ran"
)


def repository_program_keys(workdir: Path) -> list[str]:
    """Keys of the repository's own config (at `workdir`) that make git run a program.

    Reading config runs nothing. Outside a repository, or without git, the list is empty. A
    `core.fsmonitor` set to false does not count.
    """
    try:
        done = subprocess.run(
            ["git", "config", "--list", "--show-scope", "--includes", "-z"],
            cwd=workdir,
            capture_output=True,
            timeout=_CONFIG_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if done.returncode != 0:
        return []
    keys: list[str] = []
    fields = done.stdout.decode("utf-8", errors="replace").split("\0")
    # -z with --show-scope: "scope\0key\nvalue\0" for each entry.
    for scope, entry in zip(fields[::2], fields[1::2], strict=False):
        key, _, value = entry.partition("\n")
        if scope not in _REPOSITORY_SCOPES or not _RUNS_PROGRAM.match(key.lower()):
            continue
        if key.lower() == "core.fsmonitor" and value.strip().lower() in _FALSE:
            continue
        keys.append(key)
    return list(dict.fromkeys(keys))


def harden_git_command(cmd: str) -> str:
    """`cmd` preceded by the shell function that runs every `git` in it with the options above."""
    return f"{_GIT_FUNCTION}\n{cmd}"

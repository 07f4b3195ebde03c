"""Read-only git that runs no program the repository configures: one path for every git that runs unasked.

Two kinds of git run without anyone approving them: the model's known-safe `git status`/`diff`/
`log`/`show` (in `read-only`, or under `untrusted`), and the harness's own git (the turn metadata's
`git status`, plan mode's workspace snapshot). A cloned repository is not trusted, yet its config can
make git run programs: `core.fsmonitor`, `core.pager`/`pager.<cmd>`, `diff.external`, per-driver
`diff.<x>.textconv`/`command`, `filter.<x>.clean`/`smudge`/`process` (which `git status` runs on
racily-clean files) and `gpg.program` (signatures in `log`/`show`). So both go through this module:

- judged first: the repository's own config (scopes `local` and `worktree`, `include.path` and
  `includeIf` followed, as git itself reads them) must define none of those keys. If it does, the
  model's command needs approval and the harness's own git does not run (per-driver keys cannot be
  switched off from the command line, and `git status` has no `--no-textconv`);
- run with `GIT_OPTIONS` (`--no-pager`, `core.fsmonitor=false`, `core.hooksPath=/dev/null`,
  `log.showSignature=false`, `diff.ignoreSubmodules=all`: a submodule's own config is not judged,
  so git does not descend into one) and `--no-ext-diff --no-textconv` for `diff`/`log`/`show`, so
  even a key the judgement missed is not used;
- in `git_environment`: every `GIT_*` variable is removed (`GIT_DIR`, `GIT_WORK_TREE`,
  `GIT_CONFIG*`, `GIT_EXTERNAL_DIFF`, `GIT_TRACE`, ... would steer which repository, which config
  or which program), and `GIT_OPTIONAL_LOCKS=0` keeps `git status` from rewriting the index.

The model's command gets the options through a shell function defined before it (`harden_git_command`;
the output names the rewrite); the harness calls `run_git`. The user's global and system config are
the user's own and are not judged.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "GIT_HARDENING_NOTE",
    "GIT_OPTIONS",
    "POSIX_SHELLS",
    "GitRun",
    "git_environment",
    "hardened_git_argv",
    "harden_git_command",
    "repository_program_keys",
    "run_git",
]

_RUNS_PROGRAM = re.compile(
    r"^(?:core\.fsmonitor|core\.pager|pager\..+|diff\.external|diff\..+\.(?:textconv|command)"
    r"|filter\..+\.(?:clean|smudge|process)|gpg\.(?:.+\.)?program)$"
)
_REPOSITORY_SCOPES = frozenset({"local", "worktree"})
_FALSE = frozenset({"false", "no", "off", "0", ""})
_CONFIG_TIMEOUT_S = 5.0

GIT_OPTIONS: tuple[str, ...] = (
    "--no-pager",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "log.showSignature=false",
    "-c",
    "diff.ignoreSubmodules=all",
)
"""Options before the subcommand of every git that runs unasked."""
_DIFF_SUBCOMMANDS = frozenset({"diff", "log", "show"})
_DIFF_OPTIONS: tuple[str, ...] = ("--no-ext-diff", "--no-textconv")
"""After the subcommand for `_DIFF_SUBCOMMANDS` (the others do not take them)."""


def hardened_git_argv(args: list[str] | tuple[str, ...]) -> list[str]:
    """`git <args>` with the hardening options (the subcommand must be `args[0]`)."""
    if args and args[0] in _DIFF_SUBCOMMANDS:
        return ["git", *GIT_OPTIONS, args[0], *_DIFF_OPTIONS, *args[1:]]
    return ["git", *GIT_OPTIONS, *args]


def git_environment(base: Mapping[str, str]) -> dict[str, str]:
    """`base` without any `GIT_*` variable, and with optional locks off (see the module docstring)."""
    env = {name: value for name, value in base.items() if not name.upper().startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


_GLOBAL = shlex.join(GIT_OPTIONS)
_DIFF = shlex.join(_DIFF_OPTIONS)
_DIFF_CASE = "|".join(sorted(_DIFF_SUBCOMMANDS))
# Defined after the login profile, so it wins over any alias or function there. POSIX syntax (no
# `local`), so sh, dash, bash, zsh and ksh all read it; the known-safe check guarantees that the
# first argument is the subcommand. The same argv as `hardened_git_argv` (a test holds them equal).
_GIT_FUNCTION = (
    f'git() {{ case "$1" in {_DIFF_CASE}) __ctx_sub=$1; shift; '
    f'command git {_GLOBAL} "$__ctx_sub" {_DIFF} "$@";; '
    f'*) command git {_GLOBAL} "$@";; esac; }}'
)
POSIX_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh"})
GIT_HARDENING_NOTE = (
    f"read-only git ran as `git {_GLOBAL} <subcommand>` (plus `{_DIFF}` for "
    "diff/log/show) without the environment's GIT_* variables, so no program from the repository's "
    "config ran"
)


def _git_process(workdir: Path, argv: list[str], timeout: float) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(
            argv,
            cwd=workdir,
            env=git_environment(os.environ),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def repository_program_keys(workdir: Path) -> list[str]:
    """Keys of the repository's own config (at `workdir`) that make git run a program.

    Reading config runs nothing. Outside a repository, or without git, the list is empty. A
    `core.fsmonitor` set to false does not count.
    """
    done = _git_process(
        workdir, ["git", "config", "--list", "--show-scope", "--includes", "-z"], _CONFIG_TIMEOUT_S
    )
    if done is None or done.returncode != 0:
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


@dataclass(frozen=True)
class GitRun:
    """What `run_git` got: the output of a successful run, or why there is none."""

    stdout: str | None
    refused: str | None = None
    """Set when the repository's config makes git run programs, so git did not run."""


def run_git(workdir: Path, *args: str, timeout: float = 5.0, judged: bool = False) -> GitRun:
    """The harness's own read-only `git <args>` in `workdir`, judged and hardened as above.

    `stdout` (as git wrote it) is None when git failed, timed out or is missing. `judged=True` skips the
    config check (the caller has just made it, for several calls in a row).
    """
    if not judged:
        keys = repository_program_keys(workdir)
        if keys:
            return GitRun(None, f"the repository's git config makes git run programs ({', '.join(keys)})")
    done = _git_process(workdir, hardened_git_argv(args), timeout)
    if done is None or done.returncode != 0:
        return GitRun(None)
    return GitRun(done.stdout.decode("utf-8", errors="replace"))


def harden_git_command(cmd: str) -> str:
    """`cmd` preceded by the shell function that runs every `git` in it with the options above."""
    return f"{_GIT_FUNCTION}\n{cmd}"

"""The model's git in workspace-write: any git its commands run, with the repository's programs off.

In workspace-write the model's commands run without approval, and a cloned repository's config can
make git run programs: its own `git status`, `git diff` and `git log` (and any git a script or a
Makefile of its runs) would run them, inside the sandbox but with the workspace writable. So every
confined command finds this `git` first on its PATH (a small shell script in the ctxscope home, the
real git's path written into it). Each time it runs, it reads the repository's own config (scopes
`local` and `worktree`, `include.path`/`includeIf` followed, in the directory and with the `-C`/
`--git-dir` options git itself will use) and its submodules' (`<git dir>/modules/**/config`: git
descends into them with git processes of its own, which inherit the options below), and runs the
real git with:

- always: `--no-pager`, `core.fsmonitor=false` and `core.hooksPath=/dev/null` (command-line config,
  which wins over every file and reaches the git processes git starts itself: a submodule's
  fsmonitor is off too), `log.showSignature=false`, and `--no-ext-diff --no-textconv` for
  diff/log/show/whatchanged (`--no-textconv` for blame/annotate);
- for what the repository's config names: a filter driver's `clean`/`smudge`/`process` emptied
  (`required` off), except git-lfs's own commands (`git-lfs filter-process`, `git-lfs clean|smudge`);
  `credential.helper` reset, `core.askPass` emptied, `core.sshCommand` back to `ssh`, the
  `gpg.*program`s back to `gpg`/`gpgsm`/`ssh-keygen`, `interactive.diffFilter` to `cat`, `core.editor`/
  `sequence.editor` and merge drivers to `false`, `remote.*.uploadpack`/`receivepack` back to git's own;
  `diff.external` and a diff driver's `textconv`/`command` emptied (the options above already keep
  them from running; emptied, an explicit `--ext-diff` fails instead), pagers to `cat`/`false`;
  and then one line on stderr names what was turned off.

The environment's `GIT_*` variables never reach a model command (`clean_git_environment`), so
`GIT_CONFIG_*`, `GIT_EXTERNAL_DIFF`, `GIT_DIR` of the agent's own shell cannot steer its git. A git
called by its full path (`/usr/bin/git`) bypasses the script: that is the model choosing to, not a
repository's doing.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import threading
from collections.abc import Mapping
from pathlib import Path

from ctxscope.proxy.home import ctxscope_home

__all__ = [
    "GIT_KEYS",
    "clean_git_environment",
    "git_shim_dir",
    "shim_command",
    "shim_environment",
    "shim_script",
]

GIT_KEYS = (
    r"^(core\.fsmonitor|core\.hookspath|core\.pager|pager\..*|diff\.external|diff\..*\.(textconv|command)"
    r"|filter\..*\.(clean|smudge|process)|gpg\.(.*\.)?program|credential\.helper|core\.askpass"
    r"|core\.sshcommand|interactive\.difffilter|core\.editor|sequence\.editor|merge\..*\.driver"
    r"|remote\..*\.(uploadpack|receivepack))$"
)
"""The config keys that make git run a program (POSIX ERE, as `git config --get-regexp` takes it)."""

# The script, in bash (arrays keep every argument intact). `@GIT@` is the real git's path.
_SCRIPT = r"""#!/usr/bin/env bash
# ctxscope: git with the repository's programs off (ctxscope/harness/tools/git_shim.py).
real=@GIT@
globals=() rest=() sub=""
while (($#)); do
  case $1 in
    -C|-c|--git-dir|--work-tree|--namespace|--config-env|--super-prefix|--exec-path|--list-cmds)
      if [[ $1 == --exec-path || $1 == --list-cmds ]]; then globals+=("$1"); shift; continue; fi
      globals+=("$1" "${2-}"); shift; (($#)) && shift ;;
    --) globals+=("$1"); shift; break ;;
    -*) globals+=("$1"); shift ;;
    *) sub=$1; shift; break ;;
  esac
done
rest=("$@")
opts=(--no-pager -c core.fsmonitor=false -c core.hooksPath=/dev/null -c log.showSignature=false)
off=()
filters=" "
judge() {  # one config entry ("key\nvalue"): the options that turn its program off, and its name
  local entry=$1 key value driver
  key=${entry%%$'\n'*}; value=""; [[ $entry == *$'\n'* ]] && value=${entry#*$'\n'}
  case ${key,,} in
    core.fsmonitor) [[ ${value,,} =~ ^(false|no|off|0|)$ ]] && return ;;
    pager.*)
      [[ ${value,,} =~ ^(true|false|yes|no|on|off|1|0|)$ ]] && return  # a switch, not a program
      opts+=(-c "$key=false") ;;
    core.pager) opts+=(-c core.pager=cat) ;;
    # Emptied as well as switched off by the options below: an explicit --ext-diff or --textconv
    # (or a command without those options) then fails instead of running the repository's program.
    diff.external|diff.*.command|diff.*.textconv) opts+=(-c "$key=") ;;
    filter.*)
      driver=${key#filter.}; driver=${driver%.*}
      if [[ ${driver,,} == lfs && $value =~ ^git[-\ ]lfs\ (filter-process|clean|smudge)( |$) ]]; then return; fi
      if [[ $filters != *" $driver "* ]]; then
        filters+="$driver "
        opts+=(-c "filter.$driver.clean=" -c "filter.$driver.smudge=" -c "filter.$driver.process="
               -c "filter.$driver.required=false")
      fi ;;
    credential.helper) opts+=(-c credential.helper=) ;;
    core.askpass) opts+=(-c core.askPass=) ;;
    core.sshcommand) opts+=(-c core.sshCommand=ssh) ;;
    gpg.program|gpg.openpgp.program) opts+=(-c "$key=gpg") ;;
    gpg.x509.program) opts+=(-c "$key=gpgsm") ;;
    gpg.ssh.program) opts+=(-c "$key=ssh-keygen") ;;
    gpg.*) return ;;
    interactive.difffilter) opts+=(-c interactive.diffFilter=cat) ;;
    core.editor|sequence.editor|merge.*) opts+=(-c "$key=false") ;;
    remote.*.uploadpack) opts+=(-c "$key=git-upload-pack") ;;
    remote.*.receivepack) opts+=(-c "$key=git-receive-pack") ;;
  esac
  [[ " ${off[*]} " == *" $key "* ]] || off+=("$key")
}
while IFS= read -r -d '' scope && IFS= read -r -d '' entry; do
  [[ $scope == local || $scope == worktree ]] && judge "$entry"
done < <("$real" "${globals[@]}" config --show-scope --includes -z --get-regexp '@KEYS@' 2>/dev/null)
# Submodules' own config: git status/diff descend into them with git processes of their own, which
# inherit the command-line config above but read their config themselves.
common=$("$real" "${globals[@]}" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)
if [[ -n $common && -d $common/modules ]]; then
  while IFS= read -r -d '' file; do
    while IFS= read -r -d '' entry; do judge "$entry"; done < <(
      "$real" config --file "$file" --includes -z --get-regexp '@KEYS@' 2>/dev/null)
  done < <(find "$common/modules" \( -name objects -o -name refs -o -name logs \) -prune \
             -o -type f -name config -print0 2>/dev/null)
fi
if ((${#off[@]})); then
  list=""; for key in "${off[@]}"; do list+="${list:+, }$key"; done
  printf '%s\n' "git: ctxscope turned off the programs this repository's git config sets ($list)" >&2
fi
[[ -z $sub ]] && exec "$real" "${opts[@]}" "${globals[@]}" "${rest[@]}"
case $sub in
  diff|log|show|whatchanged)
    exec "$real" "${opts[@]}" "${globals[@]}" "$sub" --no-ext-diff --no-textconv "${rest[@]}" ;;
  blame|annotate) exec "$real" "${opts[@]}" "${globals[@]}" "$sub" --no-textconv "${rest[@]}" ;;
  *) exec "$real" "${opts[@]}" "${globals[@]}" "$sub" "${rest[@]}" ;;
esac
"""

_lock = threading.Lock()
_made: dict[str, Path] = {}


def shim_script(real_git: str) -> str:
    """The script's text for the real git at `real_git`."""
    return _SCRIPT.replace("@GIT@", shlex.quote(real_git)).replace("@KEYS@", GIT_KEYS)


def git_shim_dir(real_git: str) -> Path:
    """A directory holding the `git` script for `real_git` (made once; named by its content, so a
    changed script or another git gets its own, and an existing one is rewritten only if altered)."""
    with _lock:
        if real_git in _made:
            return _made[real_git]
        text = shim_script(real_git)
        folder = ctxscope_home() / "git-shim" / hashlib.sha256(text.encode()).hexdigest()[:16]
        script = folder / "git"
        try:
            current = script.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            temporary = folder / f".git.{os.getpid()}"
            temporary.write_text(text, encoding="utf-8")
            temporary.chmod(0o500)
            temporary.replace(script)
        _made[real_git] = folder
        return folder


def clean_git_environment(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without any `GIT_*` variable (see the module docstring)."""
    return {name: value for name, value in env.items() if not name.upper().startswith("GIT_")}


def shim_environment(env: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """`env` with the script's directory first on PATH, and that directory (None, and `env`
    unchanged, where there is no git or no bash)."""
    path = env.get("PATH", os.defpath)
    shims = str(ctxscope_home() / "git-shim")
    # The real git: not a script of ours already on PATH (a command started from another command).
    search = os.pathsep.join(p for p in path.split(os.pathsep) if not p.startswith(shims))
    real = shutil.which("git", path=search)
    if real is None or shutil.which("bash", path=search) is None:
        return dict(env), None
    folder = str(git_shim_dir(os.path.realpath(real)))
    return {**env, "PATH": f"{folder}{os.pathsep}{search}"}, folder


def shim_command(cmd: str, folder: str) -> str:
    """`cmd` preceded by putting `folder` first on PATH again: a login shell's profile may have set
    PATH anew after the environment's (POSIX shells)."""
    return f'PATH={shlex.quote(folder)}:"$PATH"; export PATH\n{cmd}'

"""Which commands only read: the known-safe list, judged on the arguments the shell will pass.

In `read-only` (and under `untrusted`) a known-safe command runs without approval, so a false "safe"
skips a prompt. The judgement is on the arguments after the shell expands them, not on the text
the model wrote: a workspace can hold files named like options (`-fprint`, `--output=x.txt`), and
`find *` or `git diff *` then writes files. So:

- a word with an unquoted `*`, `?` or `[` is expanded here as the shell will (relative to the
  command's working directory; no match leaves it as written). An argument that starts with `-` and
  came from such a glob, or a program name that came from one, makes the command not known-safe;
- parameter expansion (`$X`, `${X}`, also inside double quotes), brace expansion (`{a,b}`), command
  and process substitution, any redirection (`>`, `<`, `2>&1`, here-strings), subshells, background
  jobs, comments and newlines make it not known-safe: their result cannot be read off the text;
- what is left is a list or pipeline of simple commands (`&&`, `||`, `;`, `|`), each judged on its
  expanded argv: a program on the list, without the options that make it write or run programs.

The words are read by a small POSIX lexer (below) rather than `shlex`, because the judgement needs
to know which characters were quoted, and `shlex` drops that.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SAFE_GIT_SUBCOMMANDS", "is_known_safe_command", "safe_argv", "simple_commands"]

# Commands that only read. Kept small on purpose: a false "safe" would skip a prompt.
_SAFE_PROGRAMS = frozenset({"ls", "cat", "grep", "rg", "pwd", "head", "tail", "wc", "find", "echo", "true"})
SAFE_GIT_SUBCOMMANDS = frozenset({"status", "log", "diff", "show"})
_FIND_WRITES = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"}
)
# rg can run other programs (preprocessors, decompressors).
_RG_RUNS = ("--pre", "--hostname-bin", "--search-zip", "-z")
_GIT_WRITES = ("--output", "--ext-diff", "--textconv")
_SEPARATORS = frozenset({"&&", "||", ";", "|"})
_GLOB_CHARS = frozenset("*?[")
# Characters that end a word and start an operator the check does not accept (or accepts: &&, ||, ;, |).
_OPERATOR_CHARS = frozenset("&|;<>()")
# Inside double quotes a backslash escapes only these (POSIX); elsewhere it stays.
_DQUOTE_ESCAPES = frozenset('$`"\\')


class _Unsafe(Exception):
    """The command has something whose expansion or effect the check does not read."""


@dataclass
class _Word:
    text: list[str] = field(default_factory=list)
    """The word after quote removal."""
    pattern: list[str] = field(default_factory=list)
    """The same as a glob pattern: quoted glob characters escaped."""
    glob: bool = False

    def add(self, char: str, *, quoted: bool) -> None:
        self.text.append(char)
        if char in _GLOB_CHARS:
            if quoted:
                self.pattern.append(glob.escape(char))
                return
            self.glob = True
        self.pattern.append(char)


def _brace_expansion(cmd: str, at: int) -> bool:
    """Whether the `{` at `at` may start a brace expansion (`{a,b}`, `{1..3}`), as bash reads it.

    Over-approximates: the rest of the word up to a blank or operator, quotes not considered.
    """
    end = at
    while end < len(cmd) and cmd[end] not in " \t" and cmd[end] not in _OPERATOR_CHARS:
        end += 1
    rest = cmd[at:end]
    close = rest.rfind("}")
    return close > 0 and ("," in rest[:close] or ".." in rest[:close])


def _lex(cmd: str) -> list[_Word | str]:
    """Words and the accepted operators of `cmd`; `_Unsafe` for anything else."""
    tokens: list[_Word | str] = []
    word: _Word | None = None
    i, n = 0, len(cmd)

    def end() -> None:
        nonlocal word
        if word is not None:
            tokens.append(word)
            word = None

    while i < n:
        c = cmd[i]
        if c in " \t":
            end()
            i += 1
            continue
        if c in "\n\r`" or (c == "#" and word is None):
            raise _Unsafe  # a second command line, command substitution, a comment
        if c in _OPERATOR_CHARS:
            end()
            op = cmd[i : i + 2] if cmd[i : i + 2] in ("&&", "||") else c
            if op not in _SEPARATORS:
                raise _Unsafe  # redirection, subshell, background job, `|&`
            tokens.append(op)
            i += len(op)
            continue
        if word is None:
            word = _Word()
        if c == "\\":
            if i + 1 >= n:
                raise _Unsafe
            word.add(cmd[i + 1], quoted=True)
            i += 2
        elif c == "'":
            close = cmd.find("'", i + 1)
            if close < 0:
                raise _Unsafe
            for q in cmd[i + 1 : close]:
                word.add(q, quoted=True)
            i = close + 1
        elif c == '"':
            i += 1
            while i < n and cmd[i] != '"':
                q = cmd[i]
                if q in "$`":
                    raise _Unsafe  # expanded inside double quotes too
                if q == "\\" and i + 1 < n and cmd[i + 1] in _DQUOTE_ESCAPES:
                    i += 1
                    q = cmd[i]
                word.add(q, quoted=True)
                i += 1
            if i >= n:
                raise _Unsafe  # unbalanced quote
            i += 1
        elif c == "$" or (c == "{" and _brace_expansion(cmd, i)):
            raise _Unsafe  # parameter, arithmetic or brace expansion
        else:
            word.add(c, quoted=False)
            i += 1
    end()
    return tokens


def _expand(word: _Word, cwd: Path) -> list[tuple[str, bool]]:
    """The arguments a word becomes, each with whether it came from a glob."""
    text = "".join(word.text)
    if not word.glob:
        return [(text, False)]
    pattern = "".join(word.pattern)
    # bash also reads `[^...]` as a negated set; Python's glob only `[!...]`.
    pattern = pattern.replace("[^", "[!")
    found = sorted(glob.glob(pattern, root_dir=cwd))
    return [(m, True) for m in found] if found else [(text, False)]


def simple_commands(cmd: str, cwd: Path | None = None) -> list[list[tuple[str, bool]]] | None:
    """The expanded argv of each simple command in `cmd` (each argument with whether a glob made it),
    or None when `cmd` holds anything this check does not read (see the module docstring)."""
    try:
        tokens = _lex(cmd)
    except _Unsafe:
        return None
    where = cwd if cwd is not None else Path(os.getcwd())
    commands: list[list[tuple[str, bool]]] = [[]]
    for token in tokens:
        if isinstance(token, str):
            commands.append([])
        else:
            commands[-1].extend(_expand(token, where))
    return commands


def safe_argv(argv: list[str]) -> bool:
    """Whether one simple command (no operators, arguments as the program gets them) only reads."""
    if not argv:
        return False
    prog, args = argv[0], argv[1:]
    if prog == "git":
        return (
            bool(args)
            and args[0] in SAFE_GIT_SUBCOMMANDS
            and not any(a.startswith(_GIT_WRITES) for a in args)
        )
    if prog not in _SAFE_PROGRAMS:
        return False
    if prog == "find":
        return not any(a in _FIND_WRITES for a in args)
    if prog == "rg":
        return not any(a == flag or a.startswith(flag + "=") for a in args for flag in _RG_RUNS)
    return True


def _safe_expanded(argv: list[tuple[str, bool]]) -> bool:
    if not argv or argv[0][1]:
        return False  # empty, or the program itself came from a glob
    if any(globbed and arg.startswith("-") for arg, globbed in argv):
        return False  # a file named like an option
    return safe_argv([arg for arg, _ in argv])


def is_known_safe_command(cmd: str, cwd: Path | None = None) -> bool:
    """True when `cmd`, expanded in `cwd` (default: the current directory), only reads.

    Conservative: anything the check cannot read with certainty is not safe (module docstring).
    """
    commands = simple_commands(cmd, cwd)
    return commands is not None and all(_safe_expanded(argv) for argv in commands)

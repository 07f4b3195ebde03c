"""Secrets found by the name they are assigned to in text: `KEY=value`, `Name: value` lines, JSON pairs.

This is where credentials appear in practice in a coding agent's traffic: tool outputs of `env`,
`cat .env`, `cat ~/.codex/auth.json`, `curl -v`, form-encoded bodies and query strings. Only the value
goes; the name stays, so a reader still sees which variable was there. Whether a name marks a credential
is `names.is_secret_name`; values that are obviously not secrets (empty, `null`, `<placeholder>`,
`$VAR`, `${VAR}`, `****`) stay, so documentation and templates are left as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .names import NameContext, is_secret_name
from .placeholders import PLACEHOLDER_RE

__all__ = ["Assignment", "find_assignments", "looks_like_placeholder"]

# `NAME=value` (env output, .env files, shell, form bodies and query strings).
_ASSIGN_RE = re.compile(
    r"(?<![A-Za-z0-9_.-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)=(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s&;,\"'<>\\]+)"
)
# `Name: value` alone on a line (headers in `curl -v`, YAML); the value is one token, maybe after a scheme,
# so prose such as "Password: use the reset link" is left alone.
_LINE_RE = re.compile(
    r"(?m)^[ \t<>*-]*(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:[ \t]+(?:(?i:bearer|basic|token)[ \t]+)?"
    r"(?P<value>[^\s\"'\\]+)[ \t]*\r?$"
)
# `"name": "value"` or `"name": 123` inside text that holds JSON (a `cat`'d auth.json, function arguments).
_JSON_PAIR_RE = re.compile(
    r"\"(?P<name>[A-Za-z0-9_.-]+)\"\s*:\s*(?:\"(?P<value>(?:[^\"\\\n]|\\.)*)\"|(?P<num>-?\d+(?:\.\d+)?)\b)"
)
_HINT = re.compile(r"(?i)pass|pwd|secret|token|key|auth|cookie|credential|bearer|dsn|jwt|pat|account")
_NOT_SECRET_WORDS = frozenset({"null", "none", "nil", "true", "false", "undefined", "redacted", "empty"})


@dataclass(frozen=True)
class Assignment:
    start: int
    end: int
    name: str


def looks_like_placeholder(value: str) -> bool:
    """Values that stand for a secret rather than being one: templates, variables, masks, placeholders."""
    stripped = value.strip()
    if not stripped or stripped.lower() in _NOT_SECRET_WORDS or PLACEHOLDER_RE.fullmatch(stripped):
        return True
    if stripped[0] in "<$%{[(" or set(stripped) <= set("*xX.-_#•"):
        return True
    return False


def find_assignments(text: str) -> Iterator[Assignment]:
    """Spans of values assigned to credential names in `text` (they may overlap; callers merge)."""
    if not _HINT.search(text):
        return
    rules: tuple[tuple[re.Pattern[str], NameContext], ...] = (
        (_ASSIGN_RE, "assignment"),
        (_LINE_RE, "header"),
        (_JSON_PAIR_RE, "json"),
    )
    for pattern, context in rules:
        for match in pattern.finditer(text):
            name = match.group("name")
            if not is_secret_name(name, context):
                continue
            group = "num" if context == "json" and match.group("num") is not None else "value"
            start, end = match.span(group)
            value = text[start:end]
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                start, end, value = start + 1, end - 1, value[1:-1]
            if looks_like_placeholder(value):
                continue
            yield Assignment(start, end, name)

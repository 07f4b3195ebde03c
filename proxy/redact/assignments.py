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

# `NAME=value` (env output, .env files, shell, form bodies and query strings): found from each `=`
# backwards, since a pattern starting at every word would cost far more on long text with few `=`.
_NAME_BEFORE_RE = re.compile(r"(?<![A-Za-z0-9_.-])[A-Za-z_][A-Za-z0-9_.-]{0,100}\Z")
_VALUE_AFTER_RE = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[^\s&;,\"'<>\\]+")
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
_NOT_SECRET_WORDS = frozenset({"null", "none", "nil", "true", "false", "undefined", "redacted", "empty"})


@dataclass(frozen=True)
class Assignment:
    start: int
    end: int
    name: str


def _assignments(text: str) -> Iterator[Assignment]:
    at = text.find("=")
    while at >= 0:
        name_match = _NAME_BEFORE_RE.search(text, max(0, at - 101), at)
        value_match = _VALUE_AFTER_RE.match(text, at + 1) if name_match else None
        if name_match and value_match and is_secret_name(name_match.group(0), "assignment"):
            start, end = value_match.span()
            value = value_match.group(0)
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                start, end, value = start + 1, end - 1, value[1:-1]
            if not looks_like_placeholder(value):
                yield Assignment(start, end, name_match.group(0))
        at = text.find("=", at + 1)


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
    # each rule is anchored on a rare character (`=`, a line start before `:`, `"`), so text without
    # them costs one substring test
    if "=" in text:
        yield from _assignments(text)
    rules: tuple[tuple[re.Pattern[str], NameContext, str], ...] = (
        (_LINE_RE, "header", ":"),
        (_JSON_PAIR_RE, "json", '"'),
    )
    for pattern, context, needed in rules:
        if needed not in text:
            continue
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

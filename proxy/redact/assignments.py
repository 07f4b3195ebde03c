"""Secrets found by the name they are assigned to in text: `KEY=value`, `Name: value` lines, JSON pairs.

This is where credentials appear in practice in a coding agent's traffic: tool outputs of `env`,
`cat .env`, `cat ~/.aws/credentials`, `cat ~/.codex/auth.json`, YAML and TOML files, `curl -v`,
command lines (`--password=…`), form-encoded bodies and query strings. Only the value goes; the name
stays, so a reader still sees which variable was there. Whether a name marks a credential is
`names.is_secret_name`; whether its value is a secret or code and templates (`key=itemgetter(1)`,
`token=next_token`, `<placeholder>`, `$VAR`) is `values.py`. A weak name (`key`, `token`, `sig`) needs a
credential-looking value (`values.credential_like`); after `?` or `&` a name is read as a query
parameter (`&sig=…`, `X-Goog-Signature=…`).

Beside `=` and `Name: value` lines: `"name": "value"` pairs in JSON text, also JSON-escaped once or
more (`"SecretString": "{\"password\":\"…\"}"`, a `last-applied-configuration`), and quoted pairs of
code and config in other syntaxes (`{password: "…"}`, `{'password': '…'}`, `'password' => '…'`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .names import NameContext, is_secret_name, is_weak_name
from .values import credential_like, is_reference, looks_like_placeholder, looks_random

__all__ = ["Assignment", "find_assignments", "looks_like_placeholder"]

# `NAME=value` and `name = value` (env output, .env, INI, TOML and credentials files, shell, `--name=`
# options, form bodies and query strings): found from each `=` backwards, since a pattern starting
# at every word would cost far more on long text with few `=`.
# (A `-` may stand before the name: `--password=`; `x-api-key=` is still found whole, leftmost first.)
_NAME_BEFORE_RE = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_.-]{0,100}\Z")
_VALUE_AFTER_RE = re.compile(r"[ \t]*(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s&;,\"'<>\\]+)")
# `Name: value` alone on a line (headers in `curl -v`, YAML); the value is one token, maybe after a scheme,
# so prose such as "Password: use the reset link" is left alone.
_LINE_RE = re.compile(
    r"(?m)^[ \t<>*-]*(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:[ \t]+(?:(?i:bearer|basic|token)[ \t]+)?"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'\\]+)[ \t]*(?:[ \t]#[^\n]*)?\r?$"
)
# `"name": "value"` or `"name": 123` inside text that holds JSON (a `cat`'d auth.json, function arguments).
_JSON_PAIR_RE = re.compile(
    r"\"(?P<name>[A-Za-z0-9_.-]+)\"\s*:\s*(?:\"(?P<value>(?:[^\"\\\n]|\\.)*)\"|(?P<num>-?\d+(?:\.\d+)?)\b)"
)


# `\"name\": \"value\"` at any depth of JSON-escaping (the same number of backslashes on each quote),
# found from each escaped quote-colon (`\":`), which plain text has none of.
_ESCAPED_PAIR_RE = re.compile(
    r"(?P<q>\\+)\"(?P<name>[A-Za-z0-9_.-]+)(?P=q)\"\s*:\s*(?P=q)\"(?P<value>[^\"\\\n]*)(?P=q)\""
)
# `password: "…"` / `'password': '…'` / `"password" => '…'` / `:password => "…"` inside a line of code:
# found from each separator followed by a quote, then the name before it (a pattern starting at every
# word would cost far more)
_QUOTED_SEP_RE = re.compile(r"(?::|=>)[ \t]*(?P<vq>['\"])")
_QUOTED_NAME_RE = re.compile(r"(?<![\w\\])(?P<kq>['\"]?):?(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,60})(?P=kq)[ \t]*\Z")
_QUOTED_VALUE_RE = re.compile(r"(?P<value>[^'\"\n\\]{1,500})")


@dataclass(frozen=True)
class _Pair:
    """A name/value match in the shape of `re.Match` as `find_assignments` reads it."""

    name: str
    value_span: tuple[int, int]

    def group(self, key: str) -> str:
        return self.name

    def groupdict(self) -> dict[str, str | None]:
        return {}

    def span(self, key: str) -> tuple[int, int]:
        return self.value_span


def _quoted_pairs(text: str) -> Iterator[_Pair]:
    for sep in _QUOTED_SEP_RE.finditer(text):
        name = _QUOTED_NAME_RE.search(text, max(0, sep.start() - 64), sep.start())
        if name is None:
            continue
        value = _QUOTED_VALUE_RE.match(text, sep.end())
        if value is None or not text.startswith(sep.group("vq"), value.end()):
            continue
        yield _Pair(name.group("name"), value.span("value"))


@dataclass(frozen=True)
class Assignment:
    start: int
    end: int
    name: str


def _in_call(text: str, at: int) -> bool:
    """An open parenthesis before `at` on its line: a keyword argument, `f(key=…)`."""
    line_start = text.rfind("\n", 0, at) + 1
    line = text[line_start:at]
    return line.count("(") > line.count(")")


def _literal(value: str, name: str, text: str, at: int) -> bool:
    """Whether an assigned value is a secret rather than a template or code (see `values.py`)."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return not looks_like_placeholder(value[1:-1])
    if value.endswith("://"):  # the scheme of a URL whose userinfo is a placeholder already
        return False
    if "(" not in value and "[" not in value:  # `max(words, key=len)`: the call's own bracket
        value = value.rstrip(")]}") or value
    return not looks_like_placeholder(value) and not is_reference(value, name, _in_call(text, at))


def _weak_value(name: str, value: str) -> bool:
    """A weak name's value that is not a credential (`key=timeout.`, `key: webhook-secret`)."""
    if not is_weak_name(name):
        return False
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return not credential_like(value.rstrip(".,;:)"))


def _context(text: str, name_start: int) -> NameContext:
    """`?name=` and `&name=` are query parameters; anything else is an assignment."""
    return "query" if name_start > 0 and text[name_start - 1] in "?&" else "assignment"


def _assignments(text: str) -> Iterator[Assignment]:
    at = text.find("=")
    while at >= 0:
        if text.startswith("=", at + 1):  # `==`: a comparison
            at = text.find("=", at + 2)
            continue
        end = at
        while end > 0 and text[end - 1] in " \t":  # `name = value`
            end -= 1
        name_match = _NAME_BEFORE_RE.search(text, max(0, end - 101), end)
        value_match = _VALUE_AFTER_RE.match(text, at + 1) if name_match else None
        if name_match and value_match and is_secret_name(name_match.group(0), _context(text, name_match.start())):
            name = name_match.group(0)
            start, end = value_match.span("value")
            value = value_match.group("value")
            if _literal(value, name, text, at) and not _weak_value(name, value):
                if value[0] == value[-1] and value[0] in "\"'" and len(value) >= 2:
                    start, end = start + 1, end - 1
                yield Assignment(start, end, name)
        at = text.find("=", at + 1)


def _json_token(name: str, value: str, text: str) -> bool:
    """A bare `"token"` in JSON text: a credential when random-looking, never in logprobs."""
    return name.lower() == "token" and len(value) >= 16 and looks_random(value) and '"logprob"' not in text


def find_assignments(text: str) -> Iterator[Assignment]:
    """Spans of values assigned to credential names in `text` (they may overlap; callers merge)."""
    # each rule is anchored on a rare character (`=`, a line start before `:`, `"`), so text without
    # them costs one substring test
    if "=" in text:
        yield from _assignments(text)
    rules: tuple[tuple[Callable[[str], Iterator[Any]], NameContext, tuple[str, ...]], ...] = (
        (_LINE_RE.finditer, "header", (":",)),
        (_JSON_PAIR_RE.finditer, "json", ('"',)),
        (_ESCAPED_PAIR_RE.finditer, "json", ('\\":',)),
        (_quoted_pairs, "assignment", ("'", '"')),
    )
    for finder, context, needed in rules:
        if not any(n in text for n in needed):
            continue
        for match in finder(text):
            name = match.group("name")
            group = "num" if context == "json" and match.groupdict().get("num") is not None else "value"
            start, end = match.span(group)
            value = text[start:end]
            if not is_secret_name(name, context):
                if not (context == "json" and group == "value" and _json_token(name, value, text)):
                    if not (is_weak_name(name) and credential_like(value.strip("\"'"))):
                        continue
            elif _weak_value(name, value):
                continue
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                start, end, value = start + 1, end - 1, value[1:-1]
                if looks_like_placeholder(value):
                    continue
            elif looks_like_placeholder(value) or (context == "header" and is_reference(value, name, in_call=False)):
                continue
            yield Assignment(start, end, name)

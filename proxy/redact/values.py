"""Whether a value assigned to a credential name is a secret, or code and templates that stay.

A name such as `key`, `token` or `auth` is a credential in `TOKEN=…` env output and a variable in
`sorted(rows, key=itemgetter(1))`, `token=next_token` or `api_key=os.environ.get("X")`. So the value
decides: one that is a placeholder (`<your-key>`, `$VAR`, `****`), a function call, a subscript, an
attribute access or a variable reference is left as written. Identifiers are the one guess: a bare
word is a variable inside a call's parentheses (a keyword argument), when it is snake_case without
digits, or when it repeats a word of its name (`auth=auth`); otherwise (`password = hunter2`) it is
taken for a literal. Quoted values are always literals.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from .names import name_words
from .placeholders import PLACEHOLDER_RE
from .vendors import random_looking

__all__ = [
    "credential_like",
    "worth_remembering",
    "is_documented_example",
    "is_reference",
    "looks_like_placeholder",
    "looks_random",
    "shannon_entropy",
]

_NOT_SECRET_WORDS = frozenset(
    {"null", "none", "nil", "true", "false", "undefined", "redacted", "empty"}
    # type annotations (`api_key: str`) and schema types
    | {"str", "int", "bytes", "bool", "float", "dict", "list", "any", "string", "number", "boolean", "object"}
)
# an environment variable's name (`env_key = "OPENAI_API_KEY"`): what holds the secret, not the secret
_ENV_NAME_RE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_STRING_PREFIX_RE = re.compile(r"[fbruFBRU]{1,2}")  # the `f` of `key = f"{…}"`, cut before its quote
# Words prose uses for "the value" itself: `key=value pairs`.
_GENERIC_WORDS = frozenset({"value", "values", "val", "pairs"})
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_CALL_RE = re.compile(rf"{_IDENT}(?:\.{_IDENT})*[(\[]")
_ATTRIBUTE_RE = re.compile(rf"{_IDENT}(?:\.{_IDENT})+")
_IDENT_RE = re.compile(_IDENT)
_WINDOWS_VAR_RE = re.compile(r"%[A-Za-z_][A-Za-z0-9_]*%")


# Documented example values: what vendors print in their docs stays (AWS's `AKIAIOSFODNN7EXAMPLE` and
# `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, jwt.io's token, `sk-...your-key-here`, `ghp_xxxx…`).
_EXAMPLE_RE = re.compile(
    r"(?i)(?<![.@/])example(?![.][a-z])|(?:^|[-_.])your[-_]|[-_]here$|placeholder|changeme|dummy|xxxxxxxx"
    r"|\.\.\.|<[a-z_ -]+>|(?<![A-Za-z])(?:fake|sample)(?![a-z])"
)
_JWT_IO = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"  # the signature of jwt.io's documented token
_REPEATED_RE = re.compile(r"([xX0*#•])\1{7,}")  # `00000000…`, `xxxxxxxx…` (not `AAAA`: base64 has it)


def is_documented_example(value: str) -> bool:
    """A value the docs use as an example (see `_EXAMPLE_RE`), or a mask character repeated eight times."""
    return bool(_EXAMPLE_RE.search(value) or _REPEATED_RE.search(value)) or _JWT_IO in value


def looks_like_placeholder(value: str) -> bool:
    """Values that stand for a secret rather than being one: templates, variables, masks, placeholders."""
    stripped = value.strip()
    if not stripped or stripped.lower() in _NOT_SECRET_WORDS or PLACEHOLDER_RE.fullmatch(stripped):
        return True
    if stripped[0] in "<${[(" or _WINDOWS_VAR_RE.fullmatch(stripped) or set(stripped) <= set("*xX.-_#•…`"):
        return True
    if _ENV_NAME_RE.fullmatch(stripped) or _STRING_PREFIX_RE.fullmatch(stripped):
        return True
    return is_documented_example(stripped)


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s own character distribution."""
    if not value:
        return 0.0
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def looks_random(value: str) -> bool:
    """A generated value rather than a name: letters with digits in a long run, or high entropy."""
    return random_looking(value) or (len(value) >= 16 and shannon_entropy(value) >= 4.0)


_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_WORDS_RE = re.compile(r"[a-z]+(?:[-_./][a-z]+)*[.,;:!?)]*")  # `timeout.`, `webhook-secret`, `prod/db`


_PLAIN_WORD_RE = re.compile(r"[A-Za-z][a-z]+")  # `password`, `unused`, `Development`


def worth_remembering(value: str) -> bool:
    """Whether a secret found in one place is searched for everywhere later (`known.py`): not a plain
    word (`password`, `unused`), which would be replaced all through the recording's prose."""
    return not _PLAIN_WORD_RE.fullmatch(value) and not looks_like_placeholder(value)


def credential_like(value: str) -> bool:
    """What a weak name (`key`, `token`, `sig`) needs beside it: a value that looks generated, not a word,
    a name, a UUID or a placeholder (`key=timeout.`, `key: webhook-secret` stay)."""
    if len(value) < 8 or looks_like_placeholder(value) or _UUID_RE.fullmatch(value):
        return False
    if _WORDS_RE.fullmatch(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return looks_random(value) or (has_digit and has_alpha and (len(value) >= 10 or mixed_case))


def is_reference(value: str, name: str, in_call: bool) -> bool:
    """`value` is code (a call, subscript, attribute or variable), not a literal (see the module docstring).

    `in_call`: the assignment is a keyword argument, inside an open parenthesis on its line.
    """
    if _CALL_RE.match(value):
        return True
    if _ATTRIBUTE_RE.fullmatch(value):
        return not any(looks_random(part) for part in value.split("."))
    if not _IDENT_RE.fullmatch(value) or looks_random(value):
        return False
    if in_call or value.lower() in _GENERIC_WORDS:
        return True
    if "_" in value.strip("_") and not any(c.isdigit() for c in value):
        return True
    return bool(set(name_words(value)) & set(name_words(name)))

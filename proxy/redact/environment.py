"""Which variables of an environment hold a credential, for a recorder that knows the environment it
gave a command (`ctxscope run`): their values are then replaced wherever they appear in the recording,
whole or in pieces, even where nothing around them says what they are (`Redactor.learn_environment`).

A variable holds a credential when its name says so, by the same rule as everywhere else
(`names.is_secret_name` in the `env` context: `*_TOKEN`, `*_KEY`, `*_SECRET`, `*PASSWORD*`, `*_PAT`,
`*_AUTH`, `*_DSN`, `*_CREDENTIALS`, …), or when its value has a credential's shape (a key under any name).
Values that cannot be told from ordinary text are not learnt: shorter than 8 characters, a number, a
placeholder, lowercase words (`SECRET_KEY=development`: replacing the word everywhere would eat prose),
a path to a file that holds the credential (`GOOGLE_APPLICATION_CREDENTIALS=/home/…/key.json`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from .known import MIN_KNOWN
from .names import is_secret_name
from .shapes import find_secrets
from .values import credential_like, looks_like_placeholder
from .vendors import random_key

__all__ = ["credential_values"]

_PATH_RE = re.compile(r"(?:~|\.{1,2})?/[^\s]*|[A-Za-z]:\\[^\s]*")
_WORDS_RE = re.compile(r"[a-z]+(?:[-_. ][a-z]+)*")  # `development`, `not-set`: replacing it would eat prose


def _learnable(value: str) -> bool:
    if len(value) < MIN_KNOWN or value.isdigit() or looks_like_placeholder(value) or _WORDS_RE.fullmatch(value):
        return False
    if _PATH_RE.fullmatch(value) and not random_key(value):  # a path, unless a key is part of it
        return False
    return credential_like(value) or not value.isalnum()  # a generated value, or a typed password


def credential_values(environment: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(name, value) for each variable of `environment` that holds a credential (see the docstring)."""
    for name, value in environment.items():
        value = value.strip()
        if not _learnable(value):
            continue
        if is_secret_name(name, "env") or any(f.end - f.start == len(value) for f in find_secrets(value)):
            yield name, value

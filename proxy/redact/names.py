"""Which names mark a credential: header names, JSON keys, query parameters, `KEY=value` names, env vars.

The rule works on words (`x-amz-security-token` → x, amz, security, token; `apiKey` → api, key):

- a name holding one of `password passwd passphrase secret credential(s) cookie(s) authorization bearer
  dsn jwt apikey accesskey secretkey privatekey accesstoken refreshtoken idtoken authtoken` anywhere,
  or a word ending in `password`/`passwd` (`PGPASSWORD`);
- a name of two or more words ending in `token`, `key`, `auth`, `pat`, `pass` or `pwd`, unless the word
  before says it is an identifier or a counter (`prompt_cache_key`, `idempotency-key`, `next_page_token`);
  plural counters (`x-ratelimit-remaining-tokens`, `input_tokens`) never match;
- `account` followed by `id` (`chatgpt-account-id`, `account_id`);
- the single words `auth`, and outside JSON also `token` and `key` (`?key=`, `TOKEN=`), and in a query
  `code`, `sig` and `signature`. In JSON a bare `token` is a logprobs token and `signature` an opaque
  reasoning signature: they stay.

Identifiers and counters the inspector needs (`session-id`, `thread-id`, `x-request-id`) never match.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

__all__ = ["NameContext", "is_secret_name", "name_words"]

NameContext = Literal["header", "json", "query", "assignment", "env"]

_ANYWHERE = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "credential",
        "credentials",
        "cookie",
        "cookies",
        "authorization",
        "bearer",
        "dsn",
        "jwt",
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "authtoken",
    }
)
_ANY_ENDING = ("password", "passwd")
_LAST = frozenset({"token", "key", "auth", "pat", "pass", "pwd"})
# A word before `key`/`token` that makes the name an identifier, a counter or a pointer, not a credential.
_NOT_CREDENTIAL_BEFORE = frozenset(
    {
        "cache",
        "idempotency",
        "sort",
        "primary",
        "foreign",
        "partition",
        "public",
        "lookup",
        "dedup",
        "dedupe",
        "group",
        "shard",
        "routing",
        "object",
        "unique",
        "index",
        "hash",
        "page",
        "next",
        "continuation",
        "cursor",
        "sync",
        "max",
        "input",
        "output",
        "total",
        "cached",
        "reasoning",
        "remaining",
        "limit",
        "count",
        "stop",
        "bos",
        "eos",
        "pad",
        "unk",
        "special",
        "hot",
        "sequence",
    }
)
_SINGLE = {
    "header": frozenset({"auth", "token", "key", "pat"}),
    "json": frozenset({"auth"}),
    "query": frozenset({"auth", "token", "key", "code", "sig", "signature", "pat"}),
    "assignment": frozenset({"auth", "token", "key", "pat"}),
    "env": frozenset({"auth", "token", "key", "pat"}),
}
_WORD_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def name_words(name: str) -> tuple[str, ...]:
    """`X-Amz-Security-Token` → ('x', 'amz', 'security', 'token'); `APIKey` → ('api', 'key')."""
    return tuple(word.lower() for word in _WORD_RE.findall(name))


@lru_cache(maxsize=4096)
def is_secret_name(name: str, context: NameContext = "json") -> bool:
    """True when `name` says its value is a credential (see the module docstring for the rule)."""
    words = name_words(name)
    if not words:
        return False
    # `PGPASSWORD`, `REDISPASSWD`: one word, a password all the same
    if any(word in _ANYWHERE or word.endswith(_ANY_ENDING) for word in words):
        return True
    if len(words) == 1:
        return words[0] in _SINGLE[context]
    if any(a == "account" and b == "id" for a, b in zip(words, words[1:], strict=False)):
        return True
    last, before = words[-1], words[-2]
    return last in _LAST and not (last in ("key", "token") and before in _NOT_CREDENTIAL_BEFORE)

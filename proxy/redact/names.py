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

A name whose last word says it holds something about a credential rather than the credential itself
is a reference, never a secret: `secretName`, `secretKeyRef`, `password_reset_token_ttl`, `--secret-id`,
`token_url`, `api_key_name` (`_REFERENCE_LAST`). Glued words ending in a credential word are one
(`identitytoken`, `clientsecret`), and so are `client-key-data` and `key1` (a cloud CLI's key list).

Weak names (`is_weak_name`: the single words `key`, `token`, `code`, `sig`, `auth`, `pat`, numbered keys)
mark a credential only when the value looks like one (`values.credential_like`): `key=timeout.` in prose
and `key: webhook-secret` in a Kubernetes `secretKeyRef` stay. A header whose last word is `session`
is weak too (`is_weak_header`).

Identifiers and counters the inspector needs (`session-id`, `thread-id`, `x-request-id`) never match.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

__all__ = ["NameContext", "is_secret_name", "is_weak_header", "is_weak_name", "name_words"]

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
        "per",
    }
)
# Last words that make a name a reference to a credential, or a property of one, not the credential.
_REFERENCE_LAST = frozenset(
    {
        "name",
        "names",
        "ref",
        "refs",
        "reference",
        "file",
        "files",
        "path",
        "paths",
        "dir",
        "arn",
        "id",
        "ids",
        "type",
        "kind",
        "env",
        "var",
        "ttl",
        "expiry",
        "expires",
        "expiration",
        "lifetime",
        "length",
        "len",
        "size",
        "count",
        "timeout",
        "limit",
        "max",
        "min",
        "url",
        "uri",
        "endpoint",
        "header",
        "field",
        "param",
        "prefix",
        "suffix",
        "format",
        "mode",
        "policy",
        "version",
        "enabled",
        "required",
        "rotation",
        "manager",
        "provider",
        "backend",
        "hint",
        "label",
        "description",
        "source",
        "algorithm",
        "alg",
        "scope",
        "scopes",
        "location",
        "template",
        "selector",
        "mount",
        "owner",
        "store",
        "helper",
        "helpers",
        "command",
        "cmd",
        "exists",
        "set",
        "rotated",
        "created",
        "updated",
    }
)
# Glued single words ending in a credential word (`identitytoken`, `clientsecret`, `dbpassword`).
_GLUED_ENDINGS = ("token", "secret", "apikey", "accesskey", "secretkey", "privatekey", "password", "passwd")
_WEAK = frozenset({"key", "token", "code", "sig", "signature", "auth", "pat"})
_QUERY_LAST = frozenset({"signature", "sig", "token", "key", "secret", "password", "credential", "code"})
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


def _glued(word: str) -> bool:
    for ending in _GLUED_ENDINGS:
        if word.endswith(ending) and len(word) > len(ending):
            return word[: -len(ending)] not in _NOT_CREDENTIAL_BEFORE
    return False


@lru_cache(maxsize=4096)
def is_weak_name(name: str) -> bool:
    """A name that marks a credential only beside a credential-looking value (see the module docstring)."""
    words = [w for w in name_words(name) if not w.isdigit()]
    return len(words) == 1 and words[0] in _WEAK


_WEAK_HEADER_LAST = frozenset({"session", "sess"})


@lru_cache(maxsize=4096)
def is_weak_header(name: str) -> bool:
    """A header whose name marks a credential only beside a credential-looking value: the weak names, and
    a session (`X-Acme-Session: acme_live_9fK2…` is one; Codex's `session_id`, a UUID, is not)."""
    words = name_words(name)
    return is_weak_name(name) or (bool(words) and words[-1] in _WEAK_HEADER_LAST)


@lru_cache(maxsize=4096)
def is_secret_name(name: str, context: NameContext = "json") -> bool:
    """True when `name` says its value is a credential (see the module docstring for the rule)."""
    words = name_words(name)
    if not words:
        return False
    if any(a == "account" and b == "id" for a, b in zip(words, words[1:], strict=False)):
        return True
    if words[-1] in _REFERENCE_LAST and len(words) > 1:  # `secretName`, `token_ttl`: about one, not one
        # in an environment `*_SECRET_ID` is a credential (Vault's AppRole secret id), not a name of one
        if not (context == "env" and words[-1] == "id" and words[-2] == "secret"):
            return False
    if len(words) >= 2 and words[-1] == "data" and words[-2] in ("key", "token", "secret", "password"):
        return True  # kubeconfig `client-key-data`, `token-data`
    if words[-1].isdigit() and len(words) >= 2:  # `key1`, `password2`: numbered credentials
        words = words[:-1]
    # `PGPASSWORD`, `REDISPASSWD`: one word, a password all the same
    if any(word in _ANYWHERE or word.endswith(_ANY_ENDING) for word in words):
        return True
    if len(words) == 1:
        return words[0] in _SINGLE[context] or _glued(words[0])
    last, before = words[-1], words[-2]
    if context == "query" and last in _QUERY_LAST:  # `X-Goog-Signature`, `X-Amz-Security-Token`
        return True
    return last in _LAST and not (last in ("key", "token") and before in _NOT_CREDENTIAL_BEFORE)

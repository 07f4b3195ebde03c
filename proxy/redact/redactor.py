"""`Redactor`: replaces credentials in headers, URLs, JSON bodies and free text before anything is written.

One `Redactor` serves one file (a recording, a session): its `Placeholders` number the secrets it meets,
so the same secret reads the same everywhere in that file. What counts as a secret:

- a header, query parameter, JSON key or `KEY=value` name that marks a credential (`names.py`), plus
  any custom header names given (provider headers from the harness's config);
- a value of a known shape anywhere in text (`shapes.py`, `vendors.py`: keys, tokens, JWTs, PEM keys);
- a value known by its surroundings (`contexts.py`: URL userinfo, `.netrc`, command-line options,
  multipart fields), or a base64 blob that decodes to text holding any of these (`encoded.py`);
- a secret met before in the same file, wherever it appears again (`known.py`: a model quoting it);
- JSON: a bare `token` by its context (a random value outside logprobs), and the value-carrying keys
  (`value`, `data`, …) of an object under a credential name (`"credentials": {"value": …}`);
- logprobs tokens that spell part of a redacted text are rewritten with it, so no token keeps a piece.

Results for long strings are cached by value: request bodies repeat their whole history every turn.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from ..responses.vocabulary import CodexHeader
from .assignments import find_assignments
from .code import find_in_code
from .contexts import find_in_context
from .encoded import find_encoded
from .environment import credential_values
from .formats import find_in_formats
from .known import KnownSecrets
from .locked_state import LockedState
from .names import is_secret_name, is_weak_header, name_words
from .placeholders import PLACEHOLDER_RE, Placeholders
from .prose import find_in_prose
from .shapes import find_secrets, prefixes
from .values import credential_like, looks_like_placeholder, looks_random, worth_remembering

__all__ = ["Redactor", "Span", "resplit", "rewrite_logprobs"]

Span = tuple[int, int, str]
"""(start, end, placeholder): a secret's place in the original text and what replaced it."""
Candidate = tuple[int, int, str, "str | None"]
"""(start, end, kind, secret): a found span, and the secret whose placeholder it gets (None: itself)."""

# Headers whose whole value is a credential, with the placeholder kind they get.
_SECRET_HEADERS = {
    "authorization": "bearer",
    "proxy-authorization": "bearer",
    "chatgpt-account-id": "account_id",
    "cookie": "cookie",
    "set-cookie": "cookie",
    "openai-organization": "org",
    "openai-project": "project",
}
# Names that look like credentials but are identifiers the analysis needs.
_PUBLIC_NAMES = frozenset({CodexHeader.TURN_METADATA.value, "prompt_cache_key"})
_SCHEMES = ("bearer", "basic", "token", "ssws")
# Every scanned string is cached by value, short ones too: a scan runs a dozen finders (about 10 µs even
# for `"message"`), a look-up is a hash, and a recording repeats its short values on every request (roles,
# types, model names, the host). Measured on the recording process: 5 of 5 scans of a `GET /models`
# exchange and 17 of 17 of a short JSON answer were strings under 16 characters seen before.
_CACHE_MAX_CHARS = 64_000_000
_MAX_WHOLES = 10_000
_CACHE_ENTRY_CHARS = 64  # what an entry costs beyond its characters (dict slot, tuple, list), in characters
_MAX_DEPTH = 400
# Under a credential-named object (`"credentials": {"type": "api_key", "value": …}`), the keys that carry
# the secret itself; its `type`, `name`, `expires_at` stay, and so does a JSON schema's `"type": "string"`.
_CARRIER_KEYS = frozenset({"value", "secret", "data", "raw", "key", "token", "password", "string", "content"})
_TOKEN_KEYS = frozenset({"token", "Token", "TOKEN"})


def _kind_for_name(name: str) -> str:
    words = set(name_words(name))
    if words & {"password", "passwd", "pwd", "pass", "passphrase"}:
        return "password"
    if words & {"cookie", "cookies"}:
        return "cookie"
    if "account" in words and "id" in words:
        return "account_id"
    return "secret"


def _may_repeat(value: str, found: list[Candidate], secrets: list[str]) -> bool:
    """Whether `value` outside the spans `found` may hold a piece of one of `secrets` (12 characters or
    more): a shared run of 12 holds one of the secret's 8-character grams taken at every 5th offset."""
    parts, pos = [], 0
    for start, end, _, _ in sorted(found):
        parts.append(value[pos:start])
        pos = max(pos, end)
    parts.append(value[pos:])
    outside = "\0".join(parts)
    return any(secret[i : i + 8] in outside for secret in secrets for i in range(0, max(1, len(secret) - 7), 5))


def resplit(pieces: list[str], spans: list[Span], redacted: str) -> list[str]:
    """Cut `redacted` (the joined pieces after `spans` were replaced) where the pieces were cut.

    A cut inside a secret moves to the end of its placeholder: the piece where the secret started
    carries the whole placeholder, the pieces after it lose the rest, so the pieces still join to the
    redacted text and none holds a part of the secret.
    """
    out: list[str] = []
    pos = 0
    new_start = 0
    for piece in pieces:
        pos += len(piece)
        new_end = _new_position(pos, spans)
        out.append(redacted[new_start:new_end])
        new_start = new_end
    return out


def _new_position(offset: int, spans: list[Span]) -> int:
    shift = 0
    for start, end, placeholder in spans:
        if offset >= end:
            shift += len(placeholder) - (end - start)
        elif offset > start:
            return start + shift + len(placeholder)
        else:
            break
    return offset + shift


class Redactor(LockedState):
    """Replaces credentials in headers, JSON bodies, URLs and free text (see the module docstring)."""

    _LOCKS = ("_cache_lock",)

    def __init__(self, secret_headers: Iterable[str] = (), placeholders: Placeholders | None = None) -> None:
        self.placeholders = placeholders or Placeholders()
        self._secret_headers = {name.lower() for name in secret_headers}
        self.known = KnownSecrets()
        # value -> (redacted, spans, the `known` version it was scanned at)
        self._cache: dict[str, tuple[str, list[Span], int]] = {}
        self._cache_chars = 0
        self._cache_lock = threading.Lock()
        # (kind, whole value) -> its placeholder: a client sends the same `Authorization` on every request,
        # and finding its shape and remembering it again cost more than the rest of a short request's headers
        self._wholes: dict[tuple[str, str], str] = {}

    def __getstate__(self) -> dict[str, Any]:
        # The scan cache stays behind (it is rebuilt on use); the lock is made anew (LockedState).
        state = super().__getstate__()
        state.update(_cache={}, _cache_chars=0, _wholes={})
        return state

    # -- text ------------------------------------------------------------------------------
    def spans(self, value: str) -> tuple[str, list[Span]]:
        """The redacted text and where its secrets were (empty when nothing was found)."""
        if len(value) < 4:
            return value, []
        hit = self._cache.get(value)
        if hit is not None:
            version = self.known.version
            if hit[2] != version and not self.known.any_in(value, hit[2]):
                # none of the secrets learnt since is in it: good at this version too (checked once)
                hit = self._cache[value] = (hit[0], hit[1], version)
            if hit[2] == version:
                # nothing found: hand back the caller's own string, so `body` sees it as unchanged
                # (an equal copy would make it re-serialise an event that had no secret)
                return (hit[0], hit[1]) if hit[1] else (value, [])
        result = self._scan(value)
        cost = len(value) + _CACHE_ENTRY_CHARS
        with self._cache_lock:
            if self._cache_chars + cost > _CACHE_MAX_CHARS:
                self._cache.clear()
                self._cache_chars = 0
            self._cache[value] = (*result, self.known.version)
            self._cache_chars += cost
        return result

    def _find(self, value: str, decode: bool = True) -> list[Candidate]:
        """Every secret in `value` as (start, end, kind, the secret whose placeholder it gets or None for
        the span itself), earlier rules first, overlaps not yet resolved."""
        found: list[Candidate] = [(f.start, f.end, f.kind, None) for f in find_secrets(value)]
        found += [(a.start, a.end, _kind_for_name(a.name), None) for a in find_assignments(value)]
        found += [(s, e, k, None) for s, e, k in find_in_context(value)]
        found += [(s, e, k, None) for s, e, k in find_in_formats(value)]
        found += [(s, e, k, None) for s, e, k in find_in_code(value)]
        found += [(s, e, k, None) for s, e, k in find_in_prose(value)]
        if decode:
            blobs = find_encoded(value, lambda text: bool(self._find(text, decode=False)))
            found += [(s, e, "encoded", None) for s, e in blobs]
        found += self.known.find(value)
        return found

    @staticmethod
    def _claim(found: list[Candidate], candidates: Iterable[Candidate]) -> None:
        """Add each candidate whose span no earlier claim overlaps (the first rule to claim a span wins)."""
        for start, end, kind, secret in candidates:
            if end > start and not any(s < end and start < e for s, e, _, _ in found):
                found.append((start, end, kind, secret))

    def _scan(self, value: str) -> tuple[str, list[Span]]:
        candidates = self._find(value)
        if not candidates:
            return value, []
        found: list[Candidate] = []
        self._claim(found, candidates)
        new: list[str] = []
        for start, end, kind, secret in found:  # remembered first: a piece quoted earlier in this text
            if secret is None and not PLACEHOLDER_RE.fullmatch(value[start:end]):
                before = self.known.version
                self._remember(kind, value[start:end])
                if self.known.version != before:
                    new.append(value[start:end])
        if new and _may_repeat(value, found, new):
            self._claim(found, self.known.find(value))
        found.sort(key=lambda f: (f[0], f[1]))
        parts: list[str] = []
        spans: list[Span] = []
        pos = 0
        for start, end, kind, secret in found:
            if start < pos:
                continue
            if PLACEHOLDER_RE.fullmatch(value[start:end]):
                continue
            placeholder = self.placeholders(kind, secret if secret is not None else value[start:end])
            parts += [value[pos:start], placeholder]
            spans.append((start, end, placeholder))
            pos = end
        if not spans:
            return value, []
        parts.append(value[pos:])
        return "".join(parts), spans

    def _remember(self, kind: str, secret: str) -> None:
        """Keep `secret` to find it again out of its context, whole and in pieces (`known.py`)."""
        if kind == "jwt":  # a quoted payload or signature is found too; the header is the same everywhere
            for part in secret.split(".")[1:]:
                if len(part) >= 12:
                    self.known.add(part, "jwt", pieces=True)
            return
        if not worth_remembering(secret):
            return
        prefix = next((len(p) for p in prefixes() if secret.startswith(p)), 0)
        self.known.add(secret, kind, pieces=credential_like(secret[prefix:]), public_prefix=prefix)

    def _placeholder(self, kind: str, secret: str) -> str:
        """The placeholder of `secret`, remembered to be found again out of its context (`known.py`)."""
        self._remember(kind, secret)
        return self.placeholders(kind, secret)

    def learn_environment(self, environment: Mapping[str, str]) -> int:
        """Remember the values of `environment`'s variables whose names mark a credential, so they are
        replaced wherever they appear, whole or in pieces (`ctxscope run` gives its command's environment).
        Returns how many values were learnt; the values stay in memory only."""
        learnt = 0
        for name, value in credential_values(environment):
            before = self.known.version
            self._remember(_kind_for_name(name), value)
            learnt += self.known.version - before
        return learnt

    def cut_stub(self, partial: str, kind: str = "cut") -> str:
        """The placeholder of the stub of a secret a stream was cut inside, found again in its response."""
        # the stub is what is left of a key: all of it goes, but only as a token of its own
        self.known.add(partial, kind, min_length=3, whole=True)
        return self.placeholders(kind, partial)

    def text(self, value: str) -> str:
        """Redact secret-shaped substrings and credential assignments in free text."""
        return self.spans(value)[0]

    # -- headers ---------------------------------------------------------------------------
    def is_secret_header(self, name: str) -> bool:
        lname = name.lower()
        if lname in _PUBLIC_NAMES:
            return False
        return lname in _SECRET_HEADERS or lname in self._secret_headers or is_secret_name(lname, "header")

    def header_value(self, name: str, value: str) -> str:
        if not self.is_secret_header(name):
            if is_weak_header(name) and name.lower() not in _PUBLIC_NAMES and credential_like(value):
                return self._whole(_kind_for_name(name), value)
            return self.text(value)
        if not value or PLACEHOLDER_RE.fullmatch(value.split(" ", 1)[-1]):
            return value
        kind = _SECRET_HEADERS.get(name.lower()) or _kind_for_name(name)
        scheme, sep, rest = value.partition(" ")
        if sep and scheme.lower() in _SCHEMES and rest:
            # Keep the scheme: whether a client sent Bearer or Basic is worth seeing.
            return f"{scheme} {self._whole(kind, rest)}"
        return self._whole(kind, value)

    def headers(self, headers: dict[str, str]) -> dict[str, str]:
        return {name: self.header_value(name, value) for name, value in headers.items()}

    def _whole(self, kind: str, secret: str) -> str:
        """A placeholder for a whole value, named after its shape when it has one (same key, same name)."""
        done = self._wholes.get((kind, secret))
        if done is not None:
            return done
        placeholder = self._whole_anew(kind, secret)
        if len(self._wholes) >= _MAX_WHOLES:  # a client that sends a new token every request
            self._wholes.clear()
        self._wholes[(kind, secret)] = placeholder
        return placeholder

    def _whole_anew(self, kind: str, secret: str) -> str:
        found = find_secrets(secret)
        shaped = len(found) == 1 and found[0].start == 0 and found[0].end == len(secret)
        if shaped:
            kind = found[0].kind
        # an opaque `Authorization: Bearer …` token has no shape alone: remembered, like any by-name value
        return self._placeholder(kind, secret)

    # -- URLs ------------------------------------------------------------------------------
    def url(self, url: str) -> str:
        """Userinfo and credential query values become placeholders; the rest is kept byte for byte."""
        try:
            parts = urlsplit(url)
        except ValueError:  # not a URL after all (`http://[::1`): still scanned as text
            return self.text(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, hostport = netloc.rpartition("@")
            if not PLACEHOLDER_RE.fullmatch(userinfo):
                user, _, password = userinfo.partition(":")
                for part in (password, user):  # either may be quoted alone later
                    if looks_random(part) or part == password:
                        self.known.add(part, "userinfo")
                netloc = f"{self._placeholder('userinfo', userinfo)}@{hostport}"
        query = "&".join(self._query_pair(pair) for pair in parts.query.split("&")) if parts.query else ""
        path = self.text(parts.path)
        if (netloc, path, query) == (parts.netloc, parts.path, parts.query):
            return url
        return urlunsplit((parts.scheme, netloc, path, query, parts.fragment))

    def _query_pair(self, pair: str) -> str:
        name, sep, value = pair.partition("=")
        if not sep or not value:
            return pair
        if is_secret_name(unquote_plus(name), "query") and not looks_like_placeholder(unquote_plus(value)):
            return f"{name}={self._whole(_kind_for_name(name), unquote_plus(value))}"
        return f"{name}={self.text(value)}"

    # -- JSON ------------------------------------------------------------------------------
    def body(self, value: Any) -> Any:
        """A redacted JSON value; unchanged parts are the very same objects (cheap to compare)."""
        return self._value(value, 0)

    def _value(self, value: Any, depth: int, under_credential: bool = False) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if depth > _MAX_DEPTH:  # deeper than any real request; not worth a RecursionError
            return self.placeholders("too_deep", repr(id(value)))
        if isinstance(value, list):
            items = [self._value(v, depth + 1, under_credential) for v in value]
            return value if all(a is b for a, b in zip(items, value, strict=True)) else items
        if isinstance(value, dict):
            return self._dict(value, depth, under_credential)
        return value

    def _dict(self, value: dict[Any, Any], depth: int, under_credential: bool = False) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        changed = False
        for key, item in value.items():
            new = None
            credential = under_credential
            if isinstance(key, str):
                named = key not in _PUBLIC_NAMES and is_secret_name(key, "json")
                credential = credential or named
                # `"credentials": {"type": "api_key", "value": …}`; `metadata.token`, a WebSocket
                # `session.update` token (a logprobs `token` is not one: see `_token_is_credential`)
                if (
                    named
                    or (under_credential and key in _CARRIER_KEYS and isinstance(item, str))
                    or (key in _TOKEN_KEYS and isinstance(item, str) and _token_is_credential(item, value))
                ):
                    new = self._keyed(key, item)
            if new is None:
                new = self._value(item, depth + 1, credential)
            out[key] = new
            changed = changed or new is not item
        # logprobs tokens that spell the text are re-cut along its redaction, from the tokens as they came
        # (a token that is a piece of the secret was replaced on its own above)
        text, logprobs = out.get("text"), value.get("logprobs")
        if isinstance(text, str) and isinstance(logprobs, list) and text is not value.get("text"):
            out["logprobs"] = self._logprobs(value["text"], logprobs)
        return out if changed else value

    def _keyed(self, key: str, item: Any) -> Any:
        """The placeholder for a credential's scalar value, or None to redact it as usual."""
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            return None  # structures are walked: a JSON schema `"password": {"type": "string"}` stays
        secret = str(item)
        if looks_like_placeholder(secret):
            return item
        scheme, sep, rest = secret.partition(" ")
        if sep and scheme.lower() in _SCHEMES and rest:
            return f"{scheme} {self._whole(_kind_for_name(key), rest)}"
        return self._whole(_kind_for_name(key), secret)

    def _logprobs(self, original: str, logprobs: list[Any]) -> list[Any]:
        """Logprobs whose tokens spell `original`, re-cut along its redaction (see `resplit`)."""
        redacted, spans = self.spans(original)
        tokens = [lp.get("token") if isinstance(lp, dict) else None for lp in logprobs]
        if not spans or any(not isinstance(t, str) for t in tokens):
            return logprobs
        pieces: list[str] = [t for t in tokens if isinstance(t, str)]
        if "".join(pieces) != original:  # not a tiling: blank every token rather than guess
            return [{**lp, "token": "", "bytes": [], "top_logprobs": []} for lp in logprobs]
        return rewrite_logprobs(logprobs, pieces, resplit(pieces, spans, redacted))


def _token_is_credential(value: str, siblings: dict[Any, Any]) -> bool:
    """A bare JSON `token`: a logprobs token (beside `logprob`/`bytes`) is text the model wrote; a long
    random value anywhere else is a credential."""
    if "logprob" in siblings or "bytes" in siblings or "top_logprobs" in siblings:
        return False
    return len(value) >= 16 and looks_random(value)


def rewrite_logprobs(logprobs: list[Any], old: list[str], new: list[str]) -> list[Any]:
    """Logprob entries with their tokens replaced; alternatives dropped where a token changed."""
    out = []
    for lp, before, after in zip(logprobs, old, new, strict=True):
        if before == after:
            out.append(lp)
            continue
        entry = {**lp, "token": after, "top_logprobs": []}
        if "bytes" in entry:
            entry["bytes"] = list(after.encode("utf-8", "surrogatepass"))
        out.append(entry)
    return out

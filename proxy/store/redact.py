"""Deterministic redaction: secrets are replaced before anything reaches the disk.

The same secret always becomes the same placeholder, `<redacted:KIND:6hex>` (a short hash of the
secret), so two recordings of one client still compare equal and a redacted cassette still matches on
replay, while the secret itself cannot be recovered from the file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["Redactor", "PLACEHOLDER_RE"]

PLACEHOLDER_RE = re.compile(r"<redacted:[a-z_]+:[0-9a-f]{6}>")

# Header names whose whole value is a credential.
_SECRET_HEADERS = {
    "authorization": "bearer",
    "proxy-authorization": "bearer",
    "chatgpt-account-id": "account_id",
    "cookie": "cookie",
    "set-cookie": "cookie",
    "x-api-key": "api_key",
    "api-key": "api_key",
    "openai-api-key": "api_key",
    "x-goog-api-key": "api_key",
    "openai-organization": "org",
    "openai-project": "project",
}
# Any other header, JSON key or query parameter whose *name* says it holds a secret.
_SECRET_NAME_RE = re.compile(
    r"(api[-_]?key|access[-_]?token|refresh[-_]?token|id[-_]?token|secret|password|passwd|"
    r"authorization|bearer|session[-_]?token|account[-_]?id|^token$|^auth$)",
    re.IGNORECASE,
)
# Secrets recognisable by their shape wherever they appear in text.
_SECRET_VALUE_RES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("api_key", re.compile(r"\bsk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_\-]{16,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("bearer", re.compile(r"(?<=Bearer )(?!<redacted)[A-Za-z0-9._~+/\-]{16,}=*")),
    ("github_token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}")),
    ("aws_key", re.compile(r"\bAKIA[0-9A-Z]{16}\b")),
)
# A fast pre-check so long texts without anything secret-shaped skip the full scan.
_MAYBE_SECRET = re.compile(r"sk-|eyJ|Bearer |gh[pousr]_|AKIA")
# Query parameters that carry keys (`?key=` is common for API keys).
_SECRET_QUERY_RE = re.compile(r"^(key|code|sig|signature)$|" + _SECRET_NAME_RE.pattern, re.IGNORECASE)


def _placeholder(kind: str, secret: str) -> str:
    digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:6]
    return f"<redacted:{kind}:{digest}>"


def _replacer(kind: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        return _placeholder(kind, match.group(0))

    return replace


class Redactor:
    """Replaces credentials in headers, JSON bodies, URLs and free text."""

    def text(self, value: str) -> str:
        """Redact secret-shaped substrings of free text."""
        if not _MAYBE_SECRET.search(value):
            return value
        for kind, pattern in _SECRET_VALUE_RES:
            value = pattern.sub(_replacer(kind), value)
        return value

    def header_value(self, name: str, value: str) -> str:
        lname = name.lower()
        kind = _SECRET_HEADERS.get(lname)
        if kind is None and _SECRET_NAME_RE.search(lname) and lname not in _PUBLIC_HEADERS:
            kind = "secret"
        if kind is None:
            return self.text(value)
        if PLACEHOLDER_RE.fullmatch(value.split(" ", 1)[-1]):
            return value
        scheme, sep, rest = value.partition(" ")
        if sep and scheme.lower() in ("bearer", "basic", "token") and rest:
            # Keep the scheme: whether a client sent Bearer or Basic is worth seeing.
            return f"{scheme} {_placeholder(kind, rest)}"
        return _placeholder(kind, value)

    def headers(self, headers: dict[str, str]) -> dict[str, str]:
        return {name: self.header_value(name, value) for name, value in headers.items()}

    def url(self, url: str) -> str:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, hostport = netloc.rpartition("@")
            netloc = f"{_placeholder('userinfo', userinfo)}@{hostport}"
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode(
                [
                    (k, _placeholder("secret", v) if _SECRET_QUERY_RE.search(k) and v else self.text(v))
                    for k, v in pairs
                ],
                safe="<>:",
            )
        return self.text(urlunsplit((parts.scheme, netloc, self.text(parts.path), query, parts.fragment)))

    def body(self, value: Any) -> Any:
        """Redact a parsed JSON value: secret-named keys lose their value, strings are scanned."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.body(v) for v in value]
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for key, item in value.items():
                if isinstance(item, str) and item and _SECRET_NAME_RE.search(key) and key not in _PUBLIC_KEYS:
                    out[key] = item if PLACEHOLDER_RE.fullmatch(item) else _placeholder("secret", item)
                else:
                    out[key] = self.body(item)
            return out
        return value


# Names that look secret but are identifiers the analysis needs (and are not credentials).
_PUBLIC_HEADERS = {"x-codex-turn-metadata"}
_PUBLIC_KEYS = {"prompt_cache_key"}

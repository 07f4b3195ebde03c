"""Secrets already met in a recording, found again wherever they appear without their context.

A password is found by its name in a tool output (`password: Xk3…`); when the model then quotes it in
its answer ("the password is Xk3…"), nothing around it says it is one. So every secret a `Redactor`
finds by its context (a name, a URL's userinfo, a command-line option), the parts of a JWT after its
header (a model quotes a token's tail), and the stub of a key a stream was cut inside are kept here,
in memory only, and searched for in all later text. Secrets found by their shape are not: the shape
finds them again anywhere, and the list stays short, so the search stays a few substring tests.
"""

from __future__ import annotations

import threading

__all__ = ["MIN_KNOWN", "KnownSecrets"]

MIN_KNOWN = 8
"""Shorter values (`admin`, `1234`) would be found in too much ordinary text."""


_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _glued(text: str, at: int) -> bool:
    return 0 <= at < len(text) and text[at] in _TOKEN_CHARS


class KnownSecrets:
    """An append-only list of (secret, kind); `version` is its length, so callers can ask what is new."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[tuple[str, str, bool]] = []
        self._seen: set[str] = set()

    @property
    def version(self) -> int:
        return len(self._items)

    def add(self, secret: str, kind: str, min_length: int = MIN_KNOWN, whole: bool = False) -> None:
        """Remember `secret`; `whole`: found only as a whole token (a stub `sk-b` is not `sk-button`)."""
        if len(secret) < min_length or secret in self._seen or any(c.isspace() for c in secret):
            return
        with self._lock:
            if secret not in self._seen:
                self._seen.add(secret)
                self._items.append((secret, kind, whole))

    def any_in(self, text: str, since: int = 0) -> bool:
        """Whether one of the secrets added at or after `since` occurs in `text`."""
        return any(secret in text for secret, _, _ in self._items[since:])

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """Every occurrence (start, end, kind) of a known secret in `text`, longest secrets first."""
        found: list[tuple[int, int, str]] = []
        for secret, kind, whole in sorted(self._items, key=lambda item: -len(item[0])):
            at = text.find(secret)
            while at >= 0:
                end = at + len(secret)
                if not whole or not (_glued(text, at - 1) or _glued(text, end)):
                    found.append((at, end, kind))
                at = text.find(secret, end)
        return found

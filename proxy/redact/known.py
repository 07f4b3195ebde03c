"""Secrets already met in a recording, found again wherever they appear without their context.

A password is found by its name in a tool output (`password: Xk3…`); when the model then quotes it in
its answer ("the password is Xk3…"), nothing around it says it is one. So every secret a `Redactor`
finds by its context (a name, a URL's userinfo, a command-line option), the parts of a JWT after its
header (a model quotes a token's tail), and the stub of a key a stream was cut inside are kept here,
in memory only, and searched for in all later text. So is every secret found by its shape: the shape
finds it again whole, but not its body quoted without the prefix, nor a piece of it.

Pieces: a model quotes "the key ends in …", "the part after `dapi`, …". Every run of `PIECE` (12) or more
characters a remembered secret shares with later text is replaced too (the secret's public prefix,
`sk-proj-`, `AGE-SECRET-KEY-1`, excepted). The search indexes the secret's 8-character grams and looks
them up at every 5th position of each run of non-space characters of the text: a shared run of 12
holds an indexed gram at one of those positions, and each hit is extended to the whole shared run.
Only generated-looking secrets are searched in pieces (a password `hunter2hunter2` is searched whole),
and a plain word is not searched for at all (`password: sunshine` is redacted where it stands, but
"sunshine" in later prose stays: `values.worth_remembering`).
"""

from __future__ import annotations

import re
import threading

from ctxscope.proxy.redact.locked_state import LockedState

__all__ = ["MIN_KNOWN", "PIECE", "KnownSecrets"]

MIN_KNOWN = 8
"""Shorter values (`admin`, `1234`) would be found in too much ordinary text."""
PIECE = 12
"""A shared run this long is a piece of the secret (a random 12-character run is not met by chance)."""
_GRAM = 8
_STRIDE = PIECE - _GRAM + 1  # a shared run of PIECE holds a whole gram at one of any 5 positions in a row
_RUN_RE = re.compile(rf"\S{{{PIECE},}}")


_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _glued(text: str, at: int) -> bool:
    return 0 <= at < len(text) and text[at] in _TOKEN_CHARS


class KnownSecrets(LockedState):
    """An append-only list of (secret, kind); `version` is its length, so callers can ask what is new."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[tuple[str, str, bool]] = []
        self._seen: set[str] = set()
        # 8-gram -> [(item index, offset in the secret)], for secrets searched in pieces
        self._grams: dict[str, list[tuple[int, int]]] = {}
        self._whole_only: list[int] = []  # items not indexed in pieces: searched for whole

    @property
    def version(self) -> int:
        return len(self._items)

    def add(
        self,
        secret: str,
        kind: str,
        min_length: int = MIN_KNOWN,
        whole: bool = False,
        pieces: bool = False,
        public_prefix: int = 0,
    ) -> None:
        """Remember `secret`; `whole`: found only as a whole token (a stub `sk-b` is not `sk-button`);
        `pieces`: found in pieces of `PIECE` characters or more, but for its first `public_prefix`."""
        if len(secret) < min_length or secret in self._seen or any(c.isspace() for c in secret):
            return
        with self._lock:
            if secret in self._seen:
                return
            self._seen.add(secret)
            index = len(self._items)
            self._items.append((secret, kind, whole))
            if pieces and not whole and len(secret) - public_prefix >= PIECE:
                for offset in range(public_prefix, len(secret) - _GRAM + 1):
                    self._grams.setdefault(secret[offset : offset + _GRAM], []).append((index, offset))
            else:
                self._whole_only.append(index)

    def any_in(self, text: str, since: int = 0) -> bool:
        """Whether one of the secrets added at or after `since` occurs in `text`, whole or in pieces."""
        if any(self._items[i][0] in text for i in self._whole_only if i >= since):
            return True
        return bool(self._grams) and any(i >= since for _, _, _, i in self._pieces(text))

    def find(self, text: str) -> list[tuple[int, int, str, str]]:
        """Every occurrence (start, end, kind, secret) of a known secret or a piece of one in `text`,
        whole secrets first, longest first. (A secret indexed in pieces is found whole by its pieces: the
        shared run extends to the whole secret.)"""
        found: list[tuple[int, int, str, str]] = []
        items = self._items
        for secret, kind, whole in sorted((items[i] for i in self._whole_only), key=lambda item: -len(item[0])):
            at = text.find(secret)
            while at >= 0:
                end = at + len(secret)
                if not whole or not (_glued(text, at - 1) or _glued(text, end)):
                    found.append((at, end, kind, secret))
                at = text.find(secret, end)
        if self._grams:
            found += [(s, e, items[i][1], items[i][0]) for s, e, _, i in self._pieces(text)]
        return found

    def _pieces(self, text: str) -> list[tuple[int, int, str, int]]:
        """Shared runs of `PIECE` or more characters with a secret searched in pieces: (start, end,
        the run, the secret's index); overlapping hits of one run are reported once."""
        grams, items = self._grams, self._items
        out: list[tuple[int, int, str, int]] = []
        for run in _RUN_RE.finditer(text):
            start, end = run.span()
            covered = start
            for at in range(start, end - _GRAM + 1, _STRIDE):
                if at + _GRAM <= covered:
                    continue
                hits = grams.get(text[at : at + _GRAM])
                if not hits:
                    continue
                for index, offset in hits:
                    secret = items[index][0]
                    left, right = at, at + _GRAM
                    low = at - offset  # where the secret would start in the text
                    while left > max(start, low) and text[left - 1] == secret[left - 1 - low]:
                        left -= 1
                    while right < min(end, low + len(secret)) and text[right] == secret[right - low]:
                        right += 1
                    if right - left >= PIECE and right > covered:
                        out.append((left, right, text[left:right], index))
                        covered = right
        return out

"""Placeholders that reveal nothing about a secret, and how strict replay binds them to live values.

A secret becomes `<redacted:KIND:N>`: N counts the secrets of that kind in one recording by first
appearance, so the same secret gets the same placeholder throughout the file, two different secrets get
different ones, and nothing about the value (not even a hash prefix a guess list could confirm) is kept.
Recordings written before this scheme hold `<redacted:KIND:6hex>`; readers accept both.

On replay each side numbers its own secrets, so `PlaceholderBinding` treats a recorded placeholder as a
variable: the first live placeholder met at its position binds to it, and from then on only that live
value matches it (the same live secret wherever the recording has the same placeholder).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

from ctxscope.proxy.redact.locked_state import LockedState

__all__ = ["PLACEHOLDER_RE", "Placeholders", "PlaceholderBinding", "placeholders_in"]

PLACEHOLDER_RE = re.compile(r"<redacted:([a-z_]+):(\d+|[0-9a-f]{6})>")


class Placeholders(LockedState):
    """The numbering of one recording (thread-safe: flows complete concurrently)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_secret: dict[str, str] = {}
        self._counts: dict[str, int] = {}

    def __call__(self, kind: str, secret: str) -> str:
        """The placeholder of `secret` (a new number of `kind` the first time it is seen)."""
        with self._lock:
            known = self._by_secret.get(secret)
            if known is None:
                number = self._counts.get(kind, 0) + 1
                self._counts[kind] = number
                known = self._by_secret[secret] = f"<redacted:{kind}:{number}>"
            return known

    def continue_after(self, text: str) -> None:
        """Number new secrets after those already in `text` (appending to an existing recording).

        The values behind earlier numbers are unknown (never stored), so a secret met again in a later
        run gets a new number; numbers are never reused for a different secret.
        """
        with self._lock:
            for match in PLACEHOLDER_RE.finditer(text):
                kind, number = match.group(1), match.group(2)
                if number.isdigit():
                    self._counts[kind] = max(self._counts.get(kind, 0), int(number))


def placeholders_in(value: Any) -> Iterator[str]:
    """Every placeholder in a JSON value (or string), in document order."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if "<redacted:" in node:
                yield from (m.group(0) for m in PLACEHOLDER_RE.finditer(node))
        elif isinstance(node, dict):
            stack.extend(reversed([*node.keys(), *node.values()]))
        elif isinstance(node, list):
            stack.extend(reversed(node))


class PlaceholderBinding:
    """Recorded placeholders as variables bound to live placeholders, consistently across one replay."""

    def __init__(self) -> None:
        self._live_to_recorded: dict[str, str] = {}
        self._recorded_to_live: dict[str, str] = {}

    def bind(self, recorded: Any, live: Any) -> Any:
        """`live` with each bound placeholder renamed to its recorded one (unbound ones stay, and differ).

        Placeholders pair up by position; a pair binds when neither side is bound yet and the kinds
        agree. A live value at a place where the recording has a placeholder bound to another value
        keeps its own name, so the comparison reports it.
        """
        live_list = list(placeholders_in(live))
        if not live_list:
            return live
        for rec, liv in zip(placeholders_in(recorded), live_list, strict=False):
            if _kind(rec) != _kind(liv):
                continue
            if rec not in self._recorded_to_live and liv not in self._live_to_recorded:
                self._recorded_to_live[rec] = liv
                self._live_to_recorded[liv] = rec
        mapping = self._live_to_recorded
        return _rename(live, lambda m: mapping.get(m.group(0), m.group(0)))


def _kind(placeholder: str) -> str:
    match = PLACEHOLDER_RE.fullmatch(placeholder)
    return match.group(1) if match else ""


def _rename(value: Any, repl: Any) -> Any:
    if isinstance(value, str):
        return PLACEHOLDER_RE.sub(repl, value) if "<redacted:" in value else value
    if isinstance(value, dict):
        return {_rename(k, repl): _rename(v, repl) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, repl) for v in value]
    return value

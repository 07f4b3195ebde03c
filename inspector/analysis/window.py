"""The context window a model is served with, to show how full a request's context is.

Recordings do not carry it, so it comes from the model name; an unknown model gets the window of
the Codex models (272,000 input tokens) and is marked as assumed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# Longest matching prefix wins; numbers are input-token windows as the backends document them.
_WINDOWS = (
    ("gpt-5", 272_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("o4", 200_000),
    ("o3", 200_000),
    ("codex-mini", 200_000),
)
DEFAULT_WINDOW = 272_000


@dataclass(frozen=True)
class ContextWindow:
    """A model's input window and whether it was known or assumed."""

    tokens: int
    known: bool


@functools.lru_cache(maxsize=256)  # asked for every turn (the composition, the index); a few names recur
def context_window(model: str | None) -> ContextWindow:
    """The window for `model` (a request's `model` field)."""
    name = (model or "").lower()
    best = max((p for p, _ in _WINDOWS if name.startswith(p)), key=len, default=None)
    if best is None:
        return ContextWindow(DEFAULT_WINDOW, False)
    return ContextWindow(dict(_WINDOWS)[best], True)


def fill_ratio(tokens: int | None, model: str | None) -> float:
    """How full the window is (0..1, capped), 0 when the token count is unknown."""
    if not tokens:
        return 0.0
    return min(1.0, tokens / context_window(model).tokens)


__all__ = ["DEFAULT_WINDOW", "ContextWindow", "context_window", "fill_ratio"]

"""Pickling objects that guard their state with a lock (the lock is made anew, never sent).

The recording process hands what its redactor learnt back to the proxy's process (an in-memory pipe,
never a file), so `ctxscope run` redacts Codex's own trace with the recording's placeholders.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["LockedState"]


class LockedState:
    """A mixin: pickles `__dict__` without the attributes named in `_LOCKS`, which come back as new locks."""

    _LOCKS: tuple[str, ...] = ("_lock",)

    def __getstate__(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key not in self._LOCKS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in self._LOCKS:
            setattr(self, name, threading.Lock())

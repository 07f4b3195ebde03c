"""The one chat line of every compaction, manual (`/compact`) or automatic, so an automatic one is as
visible as a manual one (the chat's printer and the `/compact` command both use it)."""

from __future__ import annotations

__all__ = ["compaction_line"]

_WHY = {
    "manual": "",
    "auto": " automatically (the context neared its limit)",
    "context_length": " (the backend said the context was too long)",
}


def compaction_line(trigger: str, before: int, after: int, window: int, *, mid_turn: bool = False) -> str:
    """`compacted mid-turn automatically (…): 40 history items → 6 (window 2)`."""
    where = " mid-turn" if mid_turn else ""
    return f"compacted{where}{_WHY.get(trigger, '')}: {before} history items → {after} (window {window})"

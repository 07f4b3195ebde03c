"""Change kind of a turn against the previous turn of its thread: initial, append, rewrite,
compaction or fork, with the item-level detail (kept prefix, added items, removed items).

Items are compared by their normalised key (`Item.key`: content with per-response ids dropped), so
an item echoed back with a new id is the same item, and a changed date is a real change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from ctxscope.inspector.analysis.items import Item, ItemList
from ctxscope.proxy.responses.vocabulary import COMPACTION_REQUEST_KINDS


class ChangeKind(StrEnum):
    """How a turn's input relates to the previous turn of its thread."""

    INITIAL = "initial"
    """The first turn of a thread."""
    APPEND = "append"
    """The previous input is a prefix of this one (the cached prefix holds)."""
    REWRITE = "rewrite"
    """The prefix is broken."""
    COMPACTION = "compaction"
    """A rewrite that drops history and carries a summary plus re-materialised context."""
    FORK = "fork"
    """A new thread seeded from another."""


CHANGE_KINDS = tuple(kind.value for kind in ChangeKind)


@dataclass
class TurnChange:
    """What changed in a turn's input relative to `previous` (a turn number), item by item."""

    kind: str
    previous: int | None
    kept: int
    """Length of the shared prefix (items)."""
    added: list[Item] = field(default_factory=list)
    removed: list[Item] = field(default_factory=list)


def change_words(kept: int, added: int, removed: int) -> str:
    """`kept 5 +4 -1`: a turn's items against the turn it is compared with, as every view says it."""
    words = f"kept {kept}"
    if added:
        words += f" +{added}"
    if removed:
        words += f" -{removed}"
    return words


def common_prefix(a: list[str], b: list[str]) -> int:
    """Length of the longest common prefix of two key lists."""
    limit = min(len(a), len(b))
    if a[:limit] == b[:limit]:  # the common case (append) at C speed
        return limit
    lo = 0
    while lo < limit and a[lo] == b[lo]:
        lo += 1
    return lo


def extends(previous: Sequence[Item], current: Sequence[Item]) -> bool:
    """True when `current` starts with exactly the items of `previous` (then their keys match too).

    Usually the very same objects (the classifier reuses a recent turn's items), so this is one
    C-level comparison; a False is not final: items echoed back with new ids differ but share keys.
    """
    if isinstance(current, ItemList) and current.base is previous and current.keep == len(previous):
        return True  # classified as `previous` plus what was added (the reader's base reference)
    return len(previous) <= len(current) and current[: len(previous)] == previous


def carries_compaction(items: Sequence[Item], before: set[str]) -> bool:
    """True when `items` has a compaction item or summary fragment that `before` did not have."""
    for item in items:
        if item.key in before:
            continue
        if item.kind in ("compaction", "compaction_summary"):
            return True
        if any(p.kind == "compaction_summary" for p in item.parts):
            return True
    return False


def is_fork_shape(previous: Sequence[Item], current: Sequence[Item], kept: int) -> bool:
    """A divergence that keeps none of the conversation the previous turn had beyond the split."""
    dropped = {i.key for i in previous[kept:] if i.is_conversation}
    if not dropped:
        return False
    return not any(i.key in dropped for i in current[kept:])


def compare_turns(
    previous: Sequence[Item] | None,
    current: Sequence[Item],
    *,
    previous_number: int | None,
    previous_request_kind: str | None = None,
    fork: bool = False,
) -> TurnChange:
    """The change from `previous` (None: first turn of a thread) to `current`."""
    if previous is None:
        return TurnChange("initial", None, 0, list(current), [])
    if not fork and extends(previous, current):
        return TurnChange("append", previous_number, len(previous), list(current[len(previous) :]), [])
    prev_keys = [i.key for i in previous]
    cur_keys = [i.key for i in current]
    kept = common_prefix(prev_keys, cur_keys)
    added, removed = list(current[kept:]), list(previous[kept:])
    if fork:
        return TurnChange("fork", previous_number, kept, added, removed)
    if kept == len(prev_keys):
        return TurnChange("append", previous_number, kept, added, [])
    if previous_request_kind in COMPACTION_REQUEST_KINDS or carries_compaction(current, set(prev_keys)):
        return TurnChange("compaction", previous_number, kept, added, removed)
    return TurnChange("rewrite", previous_number, kept, added, removed)

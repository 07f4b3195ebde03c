"""A map carried along a thread's turns and extended by each appending turn without a copy (the
analysis's per-turn carries: a copy per turn would cost turns × entries over a growing session)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

__all__ = ["GrowingMap", "grown"]


class GrowingMap(Mapping[Any, Any]):
    """A map that a later turn extends without copying: the turns of a thread share one dict whose
    entries are numbered, and each turn's map sees the entries before its own count. Only the map
    with every entry (the newest turn's) extends the dict in place; any other (a fork, a re-analysed
    turn) or a key seen before is copied, so no map ever changes."""

    __slots__ = ("_entries", "_count")

    def __init__(self, entries: dict[Any, tuple[int, Any]], count: int) -> None:
        self._entries = entries
        self._count = count

    def __getitem__(self, key: Any) -> Any:
        entry = self._entries[key]
        if entry[0] >= self._count:
            raise KeyError(key)
        return entry[1]

    def __iter__(self) -> Iterator[Any]:
        return (k for k, (n, _) in self._entries.items() if n < self._count)

    def __len__(self) -> int:
        return self._count

    def extended(self, new: list[tuple[Any, Any]]) -> GrowingMap:
        keys = {k for k, _ in new}
        # (`k in` per new key: `set.isdisjoint(dict)` would walk the whole dict)
        if self._count == len(self._entries) and len(keys) == len(new) and not any(k in self._entries for k in keys):
            for key, name in new:
                self._entries[key] = (len(self._entries), name)
            return GrowingMap(self._entries, len(self._entries))
        merged = dict(self.items())
        merged.update(new)
        return GrowingMap({k: (n, v) for n, (k, v) in enumerate(merged.items())}, len(merged))


def grown(carried: Mapping[Any, Any] | None, new: Iterable[tuple[Any, Any]]) -> Mapping[Any, Any]:
    """`carried` with the `new` pairs added (a later pair wins, as in `dict.update`); `carried` itself
    when there is nothing to add. `carried` is never changed."""
    pairs = list(new)
    if not pairs and carried is not None:
        return carried
    if not isinstance(carried, GrowingMap):
        start = dict(carried or {})
        carried = GrowingMap({k: (n, v) for n, (k, v) in enumerate(start.items())}, len(start))
    return carried.extended(pairs)

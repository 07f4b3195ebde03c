"""A read-mostly list that is a prefix of a list it shares with the lists it extends.

A recording's requests repeat their history: request k+1's input is request k's plus a few items.
Held as real lists, a thread of n requests costs n²/2 pointers (5,000 turns of a growing session:
450 MB per list kind). A `PrefixList` built on another keeps that one's items where they are: both
read the same backing list, each up to its own length, and an append past the end of the backing
list grows it in place. Only a list that diverges from what its backing list already holds (a second
request branching off the same base, a rewrite) copies its prefix, as a real list would have anyway.

The backing list only ever grows at its end, and each `PrefixList` reads only its own first
`len(self)` entries, so what one list appends is never seen by another (a reader on another thread
included: each entry is written once, before any list's length covers it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")

__all__ = ["PrefixList", "json_default"]


class PrefixList(Sequence[T], Generic[T]):
    """A sequence of the first `keep` items of `base` and then what is appended, sharing `base`'s
    storage when it can. Indexing, slicing (a plain list), iteration, `len`, `==` with any list or
    sequence, `+`: as a list. Not a `list` subclass: code that needs a real list (JSON encoders)
    asks for one (`list(x)`, `x[:]`).

    `base` and `keep` say where it came from: the list it extends (None: none) and how many of that
    list's items it starts with.
    """

    __slots__ = ("_backing", "_length", "base", "keep")

    def __init__(self, base: Sequence[T] | None = None, keep: Any = 0, added: Iterable[T] = ()) -> None:
        """`base`'s first `keep` items (a slice bound: a `keep` that is no index raises TypeError),
        then `added`."""
        if base is None:
            self._backing: list[T] = []
            self._length = 0
        else:
            kept = len(range(len(base))[:keep])
            if isinstance(base, PrefixList):
                self._backing, self._length = base._backing, kept  # shared until this list diverges
            else:
                self._backing, self._length = list(base[:kept]), kept
        self.base = base
        self.keep = self._length
        self.extend(added)

    # -- growing -------------------------------------------------------------------------
    def append(self, value: T) -> None:
        """Add `value` at the end: in place when this list ends where its backing list does, or when
        the backing list already holds this very object next (a sibling appended it); else this
        list takes a copy of its own items first."""
        backing, length = self._backing, self._length
        if len(backing) != length and backing[length] is not value:
            backing = self._backing = backing[:length]
        if len(backing) == length:
            backing.append(value)
        self._length = length + 1

    def extend(self, values: Iterable[T]) -> None:
        for value in values:
            self.append(value)

    # -- reading -------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if step > 0:
                return self._backing[start:stop:step]
            return self._backing[: self._length][index]  # backwards: bounds past the backing's end
        position = index.__index__()
        if position < 0:
            position += self._length
        if not 0 <= position < self._length:
            raise IndexError("list index out of range")
        return self._backing[position]

    def __iter__(self) -> Iterator[T]:
        return islice(self._backing, self._length)

    def __reversed__(self) -> Iterator[T]:
        return reversed(self._backing[: self._length])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PrefixList):
            if other._length != self._length:
                return False
            return other._backing is self._backing or self[:] == other[:]
        if isinstance(other, list):
            return len(other) == self._length and self[:] == other
        if isinstance(other, Sequence) and not isinstance(other, str | bytes | tuple):
            return len(other) == self._length and self[:] == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __add__(self, other: Iterable[T]) -> list[T]:
        return [*self, *other]

    def __radd__(self, other: Iterable[T]) -> list[T]:
        return [*other, *self]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self[:]!r})"

    def shares_with(self, other: PrefixList[Any]) -> bool:
        """Whether the two read one backing list (for tests and measurements)."""
        return self._backing is other._backing


def json_default(value: object) -> list[Any]:
    """A JSON encoder's `default=`: a `PrefixList` as the list it reads as; anything else refused, as
    the encoder itself would."""
    if isinstance(value, PrefixList):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

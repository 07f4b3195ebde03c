"""Delta debugging (Zeller and Hildebrandt's ddmin) over a set of units, with a request budget.

The test asks "does changing exactly these units flip the outcome?": True (it flips), False (it
does not) or None (no verdict: the backend rejected the edited request, or every attempt failed).
No verdict counts as "does not flip", so a rejected edit can never be reported as the cause.
ddmin returns a 1-minimal set: changing it flips the outcome, and changing any one unit fewer does
not (as far as the tests went). Results are memoised by set, so a set is never asked about twice;
when the budget runs out the smallest flipping set found so far is returned, marked as such.

For n units and a single cause ddmin needs about 2·log2(n) tests; its worst case is n² + 3n.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["DdminResult", "ddmin", "worst_case_tests"]

T = TypeVar("T")


def worst_case_tests(n: int) -> int:
    """ddmin's bound on the tests it makes for `n` units."""
    return n * n + 3 * n


@dataclass
class DdminResult(Generic[T]):
    found: list[T] | None
    """The 1-minimal flipping set, in the input order; None when no set tried flips the outcome."""
    tests: int = 0
    """Distinct sets tested (each one or more requests)."""
    exhausted: bool = False
    """The budget ran out before the search ended (`found` is the smallest flip seen, if any)."""
    trail: list[tuple[list[T], bool | None]] = field(default_factory=list)
    """Every set tested, in order, with its verdict."""


class _Budget(Exception):
    pass


def _split(items: list[T], n: int) -> list[list[T]]:
    size, extra = divmod(len(items), n)
    parts, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        parts.append(items[start:end])
        start = end
    return [p for p in parts if p]


def ddmin(
    units: Sequence[T],
    flips: Callable[[list[T]], bool | None],
    *,
    budget: int | None = None,
) -> DdminResult[T]:
    """The smallest set of `units` whose change `flips` the outcome (see the module docstring)."""
    result: DdminResult[T] = DdminResult(found=None)
    memo: dict[frozenset[int], bool | None] = {}
    smallest: list[int] | None = None

    def test(subset: list[int]) -> bool:
        nonlocal smallest
        key = frozenset(subset)
        if key not in memo:
            if budget is not None and result.tests >= budget:
                raise _Budget
            result.tests += 1
            chosen = [units[i] for i in sorted(subset)]
            verdict = flips(chosen)
            memo[key] = verdict
            result.trail.append((chosen, verdict))
            if verdict and (smallest is None or len(subset) < len(smallest)):
                smallest = sorted(subset)
        return bool(memo[key])

    current = list(range(len(units)))
    n = 2
    try:
        if len(current) == 1:
            test(current)
        while len(current) >= 2:
            parts = _split(current, n)
            reduced = False
            for part in parts:
                if test(part):
                    current, n, reduced = part, 2, True
                    break
            if not reduced and len(parts) > 2:
                for part in parts:
                    rest = [i for i in current if i not in part]
                    if test(rest):
                        current, n, reduced = rest, max(n - 1, 2), True
                        break
            if reduced:
                continue
            if n >= len(current):
                break
            n = min(len(current), 2 * n)
        if len(current) == len(units) and smallest is None and len(units) > 1:
            test(current)  # nothing smaller flips: does changing everything?
    except _Budget:
        result.exhausted = True
    if smallest is not None:
        result.found = [units[i] for i in smallest]
    return result

"""Aligning the turns of two recordings of the same task: a longest common subsequence over request
fingerprints, so a turn inserted on one side leaves exactly one gap instead of shifting every
later pair.

A turn's fingerprint is what it brought to its conversation, normalised across runs (ids, dates,
temporary paths): its request kind, the kinds of the items it added, and the text of the user
message it answers. Two runs of one task give equal fingerprints to corresponding turns even when
tool outputs or backends differ.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.normalise import cross_run
from ctxscope.proxy.responses.vocabulary import RequestKind


@dataclass(frozen=True)
class AlignedPair:
    """Indexes (0-based, into each analysis's turns) of two aligned turns; None marks a gap."""

    a: int | None
    b: int | None
    matched: bool = True
    """False for turns paired only by position inside a stretch where the fingerprints differ."""


def fingerprint(result: TurnAnalysis, normaliser: Any) -> str:
    """A short stable digest of what `result` added to its thread (see the module docstring)."""
    added = result.change.added if result.change.kind == "append" else result.turn.items
    kinds = ",".join(item.kind for item in added if item.kind != "reasoning")
    users = [item for item in result.turn.items if item.kind == "user_message"]
    asked = str(normaliser.text(users[-1].text)) if users else ""
    kind = result.turn.request_kind or RequestKind.TURN
    raw = f"{kind}\x00{result.change.kind == 'initial'}\x00{kinds}\x00{asked}"
    return hashlib.sha1(raw.encode("utf-8", "replace")).hexdigest()[:16]


def lcs_align(a: Sequence[str], b: Sequence[str]) -> list[AlignedPair]:
    """Pairs of a longest common subsequence of `a` and `b`, with gaps for the rest, in order.

    The common prefix and suffix are matched first (the usual case: a long shared run with one
    local difference), so the quadratic table only covers the part in between."""
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    mid_a, mid_b = a[start:end_a], b[start:end_b]
    n, m = len(mid_a), len(mid_b)
    # lengths[i][j]: LCS length of mid_a[i:] and mid_b[j:]
    lengths = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = lengths[i], lengths[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if mid_a[i] == mid_b[j] else max(below[j], row[j + 1])
    pairs = [AlignedPair(k, k) for k in range(start)]
    i = j = 0
    while i < n and j < m:
        if mid_a[i] == mid_b[j]:
            pairs.append(AlignedPair(start + i, start + j))
            i, j = i + 1, j + 1
        elif lengths[i + 1][j] >= lengths[i][j + 1]:
            pairs.append(AlignedPair(start + i, None))
            i += 1
        else:
            pairs.append(AlignedPair(None, start + j))
            j += 1
    pairs += [AlignedPair(start + k, None) for k in range(i, n)]
    pairs += [AlignedPair(None, start + k) for k in range(j, m)]
    pairs += [AlignedPair(end_a + k, end_b + k) for k in range(len(a) - end_a)]
    return pairs


def pair_gaps(pairs: list[AlignedPair]) -> list[AlignedPair]:
    """Between two matched pairs, pair the turns found only in A with those only in B by position
    (changed turns, `matched=False`); what is left over stays a gap. An inserted turn has no
    counterpart, so it still leaves exactly one gap."""
    out: list[AlignedPair] = []
    run_a: list[int] = []
    run_b: list[int] = []

    def flush() -> None:
        for k in range(max(len(run_a), len(run_b))):
            a = run_a[k] if k < len(run_a) else None
            b = run_b[k] if k < len(run_b) else None
            out.append(AlignedPair(a, b, False) if a is not None and b is not None else AlignedPair(a, b))
        run_a.clear()
        run_b.clear()

    for pair in pairs:
        if pair.a is not None and pair.b is not None:
            flush()
            out.append(pair)
        elif pair.a is not None:
            run_a.append(pair.a)
        elif pair.b is not None:
            run_b.append(pair.b)
    flush()
    return out


def align_turn_rows(
    a: Sequence[TurnAnalysis], b: Sequence[TurnAnalysis], normalisers: tuple[Any, Any] | None = None
) -> list[AlignedPair]:
    """Two runs of turns (all of a recording's, or one thread's) aligned by fingerprint, each side
    normalised on its own (`normalisers`, or `cross_run` of each side), with differing stretches paired
    by position (`pair_gaps`). The one alignment: `compare` and every view of two recordings use it."""
    norm_a, norm_b = normalisers or (cross_run([t.turn.body for t in a]), cross_run([t.turn.body for t in b]))
    fingerprints_a = [fingerprint(t, norm_a) for t in a]
    fingerprints_b = [fingerprint(t, norm_b) for t in b]
    return pair_gaps(lcs_align(fingerprints_a, fingerprints_b))


def align_turns(a: Analysis, b: Analysis) -> list[AlignedPair]:
    """The turns of two analyses aligned (`align_turn_rows` over all their turns)."""
    return align_turn_rows(a.turns, b.turns)


__all__ = ["AlignedPair", "align_turn_rows", "align_turns", "fingerprint", "lcs_align", "pair_gaps"]

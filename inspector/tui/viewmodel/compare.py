"""The comparison view: two recordings' turns aligned, one row per pair, and the differences of
the highlighted pair."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ctxscope.inspector.analysis.compare import Comparison, TurnComparison, Verdict
from ctxscope.inspector.reports.build import VERDICT_WORDS
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, clip, count


def _turn(pair: TurnComparison, side: str) -> str:
    result = pair.a if side == "a" else pair.b
    return f"{result.turn.number:>4}" if result is not None else "   -"


_STYLES = {
    Verdict.SAME: "dim",
    Verdict.SAME_APART: "dim",
    Verdict.DIFFERS: "changed",
    Verdict.ONLY_A: "removed",
    Verdict.ONLY_B: "added",
}


def pair_state(pair: TurnComparison) -> tuple[str, str]:
    """(words, style) for a row: the pair's verdict, as `ctxscope compare` says it."""
    return VERDICT_WORDS[pair.verdict], _STYLES[pair.verdict]


def verdict_counts(comparison: Comparison) -> str:
    """`3 same apart from the above, 1 differs, 1 only in B`: the verdicts, counted."""
    counts = Counter(p.verdict for p in comparison.turns)
    return ", ".join(f"{counts[v]} {VERDICT_WORDS[v]}" for v in Verdict if counts[v]) or "no turns"


def pair_lines(comparison: Comparison) -> list[Line]:
    """One line per aligned pair: A's turn, B's turn, and whether they differ."""
    lines = []
    for pair in comparison.turns:
        word, style = pair_state(pair)
        side = pair.a or pair.b
        kind = side.change.kind if side is not None else "?"
        lines.append(
            Line(
                (
                    Run(f"{pair.index:>4} ", "dim"),
                    Run(f"A{_turn(pair, 'a')}  B{_turn(pair, 'b')}  ", ""),
                    Run(f"{word:<10} ", style),
                    Run(f"{kind}", f"kind-{kind}"),
                ),
                f"pair:{pair.index}",
            )
        )
    return lines


def _value(value: Any) -> str:
    return clip(json.dumps(value, ensure_ascii=False, default=str), 80)


def detail_lines(comparison: Comparison, index: int) -> list[Line]:
    """What differs in pair `index` (1-based row)."""
    pair = comparison.turns[index - 1]
    word, style = pair_state(pair)
    lines = [
        Line(
            (
                Run(f"Row {pair.index}", "title"),
                Run(f"  A turn {_turn(pair, 'a').strip()}  B turn {_turn(pair, 'b').strip()}  "),
                Run(word, style),
            )
        ),
    ]
    if pair.a is None or pair.b is None:
        only = pair.a or pair.b
        side = "A" if pair.a else "B"
        if only is not None:
            lines.append(
                Line.plain(
                    f"  a turn only {side} has ({only.change.kind}, {count(len(only.turn.items), 'item')})"
                )
            )
            lines += [Line.plain(f"  + {clip(i.label, 200)}", "added") for i in only.change.added[:40]]
        return lines
    if pair.verdict is Verdict.SAME:
        lines.append(Line.plain("  the same request up to volatile values (ids, dates, paths)", "dim"))
    elif pair.verdict is Verdict.SAME_APART:
        shared = ", ".join(comparison.repeated)
        lines.append(Line.plain(f"  differs only as every aligned pair does: {shared}", "dim"))
    if pair.endpoint:
        lines.append(Line.plain(f"  endpoint: {pair.endpoint[0]} | {pair.endpoint[1]}", "changed"))
    if pair.transport:
        lines.append(Line.plain(f"  transport: {pair.transport[0]} | {pair.transport[1]}", "changed"))
    if pair.status:
        lines.append(Line.plain(f"  status: {pair.status[0]} | {pair.status[1]}", "changed"))
    for name in pair.headers_only_a:
        lines.append(Line.plain(f"  header only in A: {name}", "removed"))
    for name in pair.headers_only_b:
        lines.append(Line.plain(f"  header only in B: {name}", "added"))
    for name, (va, vb) in pair.headers_changed.items():
        lines.append(Line.plain(f"  header {name}: {clip(va, 40)} | {clip(vb, 40)}", "changed"))
    for key, (va, vb) in pair.params.items():
        lines.append(Line.plain(f"  {key}: {_value(va)} | {_value(vb)}", "changed"))
    for key in pair.body_keys_only_a:
        lines.append(Line.plain(f"  body key only in A: {key}", "removed"))
    for key in pair.body_keys_only_b:
        lines.append(Line.plain(f"  body key only in B: {key}", "added"))
    if pair.instructions:
        lines.append(Line.plain("instructions", "title"))
        lines += [
            Line.plain(
                f"  {clip(text, 200)}", "added" if text[:1] == "+" else "removed" if text[:1] == "-" else ""
            )
            for text in pair.instructions[2:60]
        ]
    if not pair.tools.empty:
        lines.append(Line.plain("tools[]", "title"))
        lines += [Line.plain(f"  + {n} (only in B)", "added") for n in pair.tools.added]
        lines += [Line.plain(f"  - {n} (only in A)", "removed") for n in pair.tools.removed]
        lines += [
            Line.plain(f"  ~ {n}: {clip('; '.join(p), 150)}", "changed")
            for n, p in pair.tools.changed.items()
        ]
    if pair.items:
        lines.append(Line.plain("input[]  (- only in A, + only in B)", "title"))
        lines += [
            Line.plain(f"  {clip(text, 200)}", "added" if text[:1] == "+" else "removed")
            for text in pair.items[:80]
        ]
    for fragment in pair.fragments:
        where = f"A #{fragment.a_item}, B #{fragment.b_item}"
        lines.append(Line.plain(f"{fragment.name}  text differs ({where})", "title"))
        lines += [
            Line.plain(f"  {clip(text, 200)}", "added" if text[:1] == "+" else "removed")
            for text in fragment.diff
        ]
        if fragment.more:
            lines.append(Line.plain(f"  … {fragment.more} more changed lines", "dim"))
    usage = ", ".join(f"{k} {va}|{vb}" for k, (va, vb) in pair.usage.items() if va != vb)
    if usage:
        lines.append(Line.plain(f"  usage A|B: {usage}", "dim"))
    return lines


__all__ = ["detail_lines", "pair_lines", "pair_state", "verdict_counts"]

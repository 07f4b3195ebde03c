"""The comparison view: two recordings' turns aligned, one row per pair, and the differences of
the highlighted pair."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ctxscope.inspector.analysis.compare import Comparison, FragmentDiff, TurnComparison, Verdict
from ctxscope.inspector.analysis.instructions import base_instructions
from ctxscope.inspector.analysis.item_diff import item_text
from ctxscope.inspector.reports.build import VERDICT_WORDS
from ctxscope.inspector.tui.viewmodel.actions import OpenTexts, ShowPair
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, count


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


_WORDS = {**{v: VERDICT_WORDS[v] for v in Verdict}, Verdict.SAME_APART: "same apart"}
"""A row's verdict in the pairs pane (`same apart`: the same but for what every pair differs in,
which the header and the pair's first line name)."""
WINDOW_BEFORE = 24
"""Characters kept before the first changed one when a changed line is shown where it differs."""


def pair_state(pair: TurnComparison) -> tuple[str, str]:
    """(words, style) for a row: the pair's verdict, as `ctxscope compare` says it."""
    return _WORDS[pair.verdict], _STYLES[pair.verdict]


def verdict_counts(comparison: Comparison) -> str:
    """`1 same apart from endpoint, tools, 1 differs, 1 only in B`: the verdicts, counted, each
    said in full on the screen that shows them (no "above" the header could point at)."""
    counts = Counter(p.verdict for p in comparison.turns)
    words = {**_WORDS}
    if comparison.repeated:
        words[Verdict.SAME_APART] = f"same apart from {', '.join(comparison.repeated)}"
    return "; ".join(f"{counts[v]} {words[v]}" for v in Verdict if counts[v]) or "no turns"


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
                ShowPair(pair.index),
            )
        )
    return lines


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def where_it_differs(old: str, new: str, width: int) -> tuple[str, str]:
    """Two changed lines cut to `width` columns so that where they differ is in view: both start a
    little before their first differing character (`…` says text was left out at the start)."""
    if len(old) <= width and len(new) <= width:
        return old, new
    same = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        same += 1
    before = min(WINDOW_BEFORE, width // 4)
    start = max(0, same - before)
    if start:
        space = old.rfind(" ", 0, start + 1)  # start at a word where one is near
        start = space + 1 if start - space < before // 2 else start

    def shown(text: str) -> str:
        return cut(f"…{text[start:]}" if start else text, width)

    return shown(old), shown(new)


def cut(text: str, width: int) -> str:
    """One line in `width` columns, ending in `…` where it is longer (its indent kept)."""
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def changed_lines(
    lines: list[str] | tuple[str, ...], width: int, *, wrap: bool, texts: OpenTexts | None, indent: str = "  "
) -> list[Line]:
    """Diff lines (`-` A's, `+` B's, ` ` the same) as display lines; a `-` line followed by a `+`
    line is a changed line, shown where the two differ (unless `wrap`: then whole, wrapped by the
    pane). Enter on any of them opens `texts`."""
    out: list[Line] = []
    room = max(10, width - len(indent) - 1)
    index = 0
    while index < len(lines):
        text = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if text[:1] == "-" and following[:1] == "+":
            old, new = (text[1:], following[1:]) if wrap else where_it_differs(text[1:], following[1:], room)
            out.append(Line.plain(f"{indent}-{old}", "removed", texts))
            out.append(Line.plain(f"{indent}+{new}", "added", texts))
            index += 2
            continue
        style = "added" if text[:1] == "+" else "removed" if text[:1] == "-" else ""
        shown = text if wrap else cut(text, room + 1)
        out.append(Line.plain(f"{indent}{shown}", style, texts))
        index += 1
    return out


def _fragment_texts(pair: TurnComparison, fragment: FragmentDiff) -> OpenTexts | None:
    """The old and the new text of a fragment that differs: the part of that name in A's and B's
    item, else the items' whole texts."""
    if pair.a is None or pair.b is None:
        return None
    sides = []
    for result, position in ((pair.a, fragment.a_item), (pair.b, fragment.b_item)):
        items = result.turn.items
        if not 0 <= position < len(items):
            return None
        item = items[position]
        part = next((p for p in item.parts if p.label == fragment.name or p.kind == fragment.name), None)
        sides.append(part.text if part is not None else item_text(item))
    a, b = pair.a.turn.number, pair.b.turn.number
    title = f"{fragment.name}: A turn {a} item #{fragment.a_item}, B turn {b} item #{fragment.b_item}"
    return OpenTexts(title, sides[0], sides[1])


def detail_lines(comparison: Comparison, index: int, *, width: int = 80, wrap: bool = False) -> list[Line]:
    """What differs in pair `index` (1-based row), drawn for a pane `width` columns wide: a changed
    line is shown where it differs (or whole, when `wrap`), Enter on it opens both texts."""
    pair = comparison.turns[index - 1]
    word, style = pair_state(pair)

    def fit(text: str) -> str:
        return text if wrap else cut(text, width)

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
                Line.plain(f"  a turn only {side} has ({only.change.kind}, {count(len(only.turn.items), 'item')})")
            )
            lines += [Line.plain(fit(f"  + {i.label}"), "added") for i in only.change.added[:40]]
        return lines
    if pair.verdict is Verdict.SAME:
        lines.append(Line.plain(fit("  the same request up to volatile values (ids, dates, paths)"), "dim"))
    elif pair.verdict is Verdict.SAME_APART:
        shared = ", ".join(comparison.repeated)
        lines.append(Line.plain(fit(f"  the same, apart from what every aligned pair differs in: {shared}"), "dim"))

    def both(label: str, old: str, new: str, texts: OpenTexts | None = None) -> list[Line]:
        """A value that differs, A's then B's, each on its line where it differs."""
        head = [Line.plain(fit(f"  {label}"), "changed", texts)]
        return head + changed_lines([f"-{old}", f"+{new}"], width, wrap=wrap, texts=texts, indent="    ")

    if pair.endpoint:
        lines += both("endpoint (- A, + B)", *pair.endpoint)
    if pair.transport:
        lines += both("transport (- A, + B)", *pair.transport)
    if pair.status:
        lines += both("status (- A, + B)", str(pair.status[0]), str(pair.status[1]))
    for name in pair.headers_only_a:
        lines.append(Line.plain(fit(f"  header only in A: {name}"), "removed"))
    for name in pair.headers_only_b:
        lines.append(Line.plain(fit(f"  header only in B: {name}"), "added"))
    for name, (va, vb) in pair.headers_changed.items():
        lines += both(f"header {name} (- A, + B)", va, vb)
    for key, (va, vb) in pair.params.items():
        old, new = _value(va), _value(vb)
        lines += both(f"{key} (- A, + B)", old, new, OpenTexts(key, old, new))
    for key in pair.body_keys_only_a:
        lines.append(Line.plain(fit(f"  body key only in A: {key}"), "removed"))
    for key in pair.body_keys_only_b:
        lines.append(Line.plain(fit(f"  body key only in B: {key}"), "added"))
    if pair.instructions:
        texts: OpenTexts | None = OpenTexts(
            "instructions", base_instructions(pair.a.turn).text, base_instructions(pair.b.turn).text
        )
        lines.append(Line.plain("instructions  (- A, + B)", "title", texts))
        lines += changed_lines(pair.instructions[2:60], width, wrap=wrap, texts=texts)
    if not pair.tools.empty:
        lines.append(Line.plain("tools[]", "title"))
        lines += [Line.plain(fit(f"  + {n} (only in B)"), "added") for n in pair.tools.added]
        lines += [Line.plain(fit(f"  - {n} (only in A)"), "removed") for n in pair.tools.removed]
        lines += [Line.plain(fit(f"  ~ {n}: {'; '.join(p)}"), "changed") for n, p in pair.tools.changed.items()]
    if pair.items:
        lines.append(Line.plain("input[]  (- only in A, + only in B)", "title"))
        lines += [Line.plain(fit(f"  {text}"), "added" if text[:1] == "+" else "removed") for text in pair.items[:80]]
    for fragment in pair.fragments:
        texts = _fragment_texts(pair, fragment)
        where = f"A #{fragment.a_item}, B #{fragment.b_item}"
        lines.append(Line.plain(fit(f"{fragment.name}  text differs ({where}; Enter: both texts)"), "title", texts))
        lines += changed_lines(fragment.diff, width, wrap=wrap, texts=texts)
        if fragment.more:
            lines.append(Line.plain(f"  … {fragment.more} more changed lines", "dim", texts))
    usage = ", ".join(f"{k} {va}|{vb}" for k, (va, vb) in pair.usage.items() if va != vb)
    if usage:
        lines.append(Line.plain(fit(f"  usage A|B: {usage}"), "dim"))
    return lines


__all__ = ["changed_lines", "cut", "detail_lines", "pair_lines", "pair_state", "verdict_counts", "where_it_differs"]

"""The context-composition view (`x`): per turn of the thread a stacked bar of what fills the
context, by kind, drawn against the model's window with the auto-compaction threshold marked, then
the highlighted turn's kinds and largest items. The figures are `composition_report`'s (the same
as `ctxscope composition`); this module only draws them, in text, so it reads without colour:
each kind has its own glyph, named in the legend.
"""

from __future__ import annotations

from ctxscope.inspector.analysis.cache import CacheTurn
from ctxscope.inspector.analysis.composition import Composition, CompositionReport
from ctxscope.inspector.tui.viewmodel.actions import ShowTurn
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, clip, short_tokens, wrapped

GLYPHS = "#=%@+*o~:x"
"""One glyph a kind, the largest kinds first; kinds past these share the last."""
ROW_HEAD = 7
"""Columns before a bar (the turn number)."""
KIND_WIDTH = 28
ROW_TAIL = 19
"""Columns after a bar (`  12.3k / 272.0k`), with one to spare."""


def _glyphs(turns: list[Composition]) -> dict[str, str]:
    """Kind → glyph, by tokens over the thread's turns (the largest kind gets `#`)."""
    totals: dict[str, int] = {}
    for composition in turns:
        for kind, tokens in composition.by_kind.items():
            totals[kind] = totals.get(kind, 0) + tokens
    ordered = sorted(totals, key=lambda k: -totals[k])
    return {kind: GLYPHS[min(i, len(GLYPHS) - 1)] for i, kind in enumerate(ordered)}


def _legend(glyphs: dict[str, str], width: int) -> list[Line]:
    """`# base_prompt  = tools  ...`, on as many lines as the width needs."""
    lines: list[Line] = []
    runs: list[Run] = []
    used = 0
    for kind, glyph in glyphs.items():
        size = len(glyph) + len(kind) + 3
        if runs and used + size > width:
            lines.append(Line(tuple(runs)))
            runs, used = [], 0
        runs += [Run(f"{glyph} ", f"comp-{GLYPHS.index(glyph)}"), Run(f"{kind}  ")]
        used += size
    if runs:
        lines.append(Line(tuple(runs)))
    return lines


def stacked_bar(composition: Composition, glyphs: dict[str, str], width: int) -> list[Run]:
    """The turn's kinds as runs of their glyphs, `width` columns standing for the whole window;
    the threshold's column shows `|` where the context does not reach it, and past the window the
    bar ends in `>`."""
    window = composition.window or max(composition.total, 1)
    runs: list[Run] = []
    used = 0
    for kind, tokens in composition.by_kind.items():
        cells = round(tokens / window * width)
        cells = min(cells, width - used)
        if cells > 0:
            runs.append(Run(glyphs.get(kind, GLYPHS[-1]) * cells, f"comp-{GLYPHS.index(glyphs.get(kind, GLYPHS[-1]))}"))
            used += cells
    over = composition.total > window
    threshold = min(width - 1, round(composition.threshold / window * width)) if composition.threshold else None
    rest = ["."] * (width - used)
    if threshold is not None and threshold >= used:
        rest[threshold - used] = "|"
    if over and runs:
        last = runs[-1]
        runs[-1] = Run(last.text[:-1] + ">", "error")
    runs.append(Run("".join(rest), "dim"))
    return runs


def composition_lines(
    report: CompositionReport, number: int, *, width: int = 80, cache: CacheTurn | None = None
) -> list[Line]:
    """The view for turn `number`: the legend, one bar a turn of its thread (the highlighted one
    marked `>`), then that turn's kinds, its largest items, and its cache break if it has one."""
    here = next((c for c in report.turns if c.turn == number), None)
    if here is None:
        return [
            Line.plain(f"Context composition at turn {number}", "title"),
            Line.plain("a side request: not part of the conversation's context", "dim"),
        ]
    thread = [c for c in report.turns if c.thread == here.thread]
    glyphs = _glyphs(thread)
    bar_width = max(10, width - ROW_HEAD - ROW_TAIL)
    window = f"{short_tokens(here.window)}{'' if here.window_known else ' (assumed)'}"
    lines = [
        Line.plain(f"Context composition at turn {number}  (thread {here.thread}, window {window})", "title"),
        *wrapped(f"the bar is the window; | compaction at {short_tokens(here.threshold)}; > past it", width, "dim"),
        *_legend(glyphs, width),
        Line.plain(""),
    ]
    for composition in thread:
        mark = ">" if composition.turn == number else " "
        runs = [Run(f"{mark}{composition.turn:>5} ", "title" if mark == ">" else "dim")]
        runs += stacked_bar(composition, glyphs, bar_width)
        runs.append(Run(f"  {short_tokens(composition.total):>6} / {short_tokens(composition.window):<6}", "dim"))
        lines.append(Line(tuple(runs), ShowTurn(composition.turn)))
    lines += [
        Line.plain(""),
        Line.plain(f"turn {number}: {here.total:,} tokens ({here.fill:.0%} of the window)", "title"),
    ]
    for kind, tokens in here.by_kind.items():
        growth = here.growth.get(kind, 0)
        change = f"  ({growth:+,} since the previous turn)" if growth else ""
        name = Run(f"  {glyphs.get(kind, ' ')} {clip(kind, KIND_WIDTH):<{KIND_WIDTH}}", "")
        lines.append(Line((name, Run(f"{tokens:>9,}", ""), Run(change, "dim"))))
    if here.largest:
        lines.append(Line.plain("largest items", "title"))
        for item in here.largest:
            where = f"#{item.position}" if item.position >= 0 else "tools"
            text = f"  {where:<6} {item.tokens:>8,}  {item.kind}: {item.label}"
            lines.append(Line.plain(text if len(text) <= width else text[: width - 1] + "…", ""))
    if cache is not None and cache.brk is not None:
        lines.append(Line.plain(cache_break_sentence(cache), "warn"))
    return lines


def cache_break_sentence(cache: CacheTurn) -> str:
    """`cache break at input[3] (an edited item): 1,200 cached tokens lost` (`cache_report`'s)."""
    brk = cache.brk
    if brk is None:
        return ""
    return f"cache break at {brk.at}: {brk.cause}; {brk.tokens:,} cached tokens lost"


__all__ = ["GLYPHS", "cache_break_sentence", "composition_lines", "stacked_bar"]

"""The compaction and tokens views of a turn."""

from __future__ import annotations

from collections.abc import Sequence

from ctxscope.inspector.analysis.analyse import TurnAnalysis
from ctxscope.inspector.analysis.cost import turn_cost, usd_text
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.analysis.tokens import get_tokenizer
from ctxscope.inspector.tui.viewmodel.actions import OpenItem
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, bar, clip, count

TOKEN_SORTS = ("tokens", "name")


def _items(title: str, items: Sequence[Item], style: str, turn: int, side: str) -> list[Line]:
    """A titled list of items; `side` (`old`, `new`) says whose positions the `#` are (`turn`'s)."""
    out = [Line.plain(f"{title}  ({count(len(items), 'item')}, {side} #: turn {turn}'s positions)", "title")]
    out += [
        Line(
            (
                Run(f"  {side} #{i.position:<4}", "dim"),
                Run(clip(i.label, 200), style),
                Run(f" {i.tokens} tok", "dim"),
            ),
            OpenItem(turn, i.position),
        )
        for i in items
    ]
    return out


def compaction_lines(result: TurnAnalysis) -> list[Line]:
    """What a compaction summarised, the summary, what came back, what was kept, tokens before/after."""
    report = result.compaction
    if report is None:
        return [
            Line.plain(f"Turn {result.turn.number} is not the first turn after a compaction.", "dim"),
            Line.plain("Filter with kind:compaction to find one.", "dim"),
        ]
    lines = [
        Line.plain(f"Compaction at turn {result.turn.number}", "title"),
        Line.plain(
            f"  trigger: {report.trigger}"
            + (f" (requested at turn {report.request_turn})" if report.request_turn else "")
        ),
        Line.plain(f"  tokens: {report.tokens_before:,} -> {report.tokens_after:,}"),
    ]
    if report.tokens_after >= report.tokens_before:
        lines.append(Line.plain("  WARNING: the compacted context is not smaller than what it replaced", "error"))
    if report.kept_in_place:
        lines.append(Line.plain(f"  {count(report.kept_in_place, 'leading item')} kept in place", "dim"))
    before = result.change.previous or result.turn.number
    lines.append(Line.plain(""))
    lines += _items("summarised (gone)", report.summarised, "removed", before, "old")
    lines.append(Line.plain(""))
    lines.append(Line.plain("summary", "title"))
    summary = report.summary or "(no readable summary: encrypted or missing)"
    lines += [Line.plain(f"  {clip(text, 400)}", "added") for text in summary.splitlines()[:60] or [""]]
    lines.append(Line.plain(""))
    lines += _items("re-materialised context", report.rematerialised, "changed", result.turn.number, "new")
    if report.dropped_context:
        lines.append(Line.plain(""))
        lines += _items("context dropped", report.dropped_context, "removed", before, "old")
    lines.append(Line.plain(""))
    lines += _items("kept (recent messages)", report.kept, "", result.turn.number, "new")
    return lines


def token_lines(result: TurnAnalysis, *, sort: str = "tokens") -> list[Line]:
    """Per-fragment attribution, sortable, reconciled with the reported input and cached tokens."""
    report = result.tokens
    rows = sorted(report.by_kind.items(), key=(lambda kv: (-kv[1], kv[0])) if sort == "tokens" else None)
    total = max(report.total, 1)
    tokenizer = get_tokenizer()
    lines = [
        Line.plain(f"Tokens of turn {result.turn.number}  (sorted by {sort}; s to re-sort)", "title"),
        Line.plain(f"  counted with {tokenizer.name}{' (estimate)' if tokenizer.estimated else ''}", "dim"),
    ]
    for kind, tokens in rows:
        share = tokens / total
        lines.append(
            Line(
                (
                    Run(f"  {kind:<24}", ""),
                    Run(f"{tokens:>9,} ", ""),
                    Run(bar(share, 10), "bar"),
                    Run(f" {share:>6.1%}", "dim"),
                )
            )
        )
    usage = report.usage

    def num(value: int | None) -> str:
        return "-" if value is None else f"{value:,}"

    lines += [
        Line.plain(""),
        Line.plain(f"  {'counted total':<24}{report.total:>9,}"),
        Line.plain(f"  {'reported input':<24}{num(usage.get('input_tokens')):>9}"),
        Line.plain(f"  {'unaccounted':<24}{num(report.unaccounted):>9}  (framing, schemas)", "dim"),
        Line.plain(f"  {'reported cached':<24}{num(usage.get('cached_tokens')):>9}"),
        Line.plain(f"  {'predicted cached':<24}{report.predicted_cached:>9,}  (shared prefix)", "dim"),
        Line.plain(f"  {'output':<24}{num(usage.get('output_tokens')):>9}"),
    ]
    # The request's cost: the turn document's one figure (`ctxscope cost`, `diff`, the HTML report).
    cost = turn_cost(result)
    if cost.reported:
        if cost.cache_write_tokens:
            lines.append(Line.plain(f"  {'reported cache writes':<24}{cost.cache_write_tokens:>9,}"))
        if cost.reasoning_tokens:
            lines.append(Line.plain(f"  {'  of it reasoning':<24}{cost.reasoning_tokens:>9,}", "dim"))
        money = usd_text(cost.usd, api_equivalent=cost.api_equivalent)
        where = f"  ({cost.price.source})" if cost.price is not None else "  (no price for this model)"
        lines.append(Line.plain(f"  {'cost':<24}{money:>9}{where}"))
    return lines


__all__ = ["TOKEN_SORTS", "compaction_lines", "token_lines"]

"""`ctxscope context` (what fills each turn's context) and `ctxscope cache` (why the cache missed).

Both read the one analysis of a recording (`ctxscope.inspector.analysis`) and render its composition and
cache figures (`analysis.composition`, `analysis.cache`) as text, JSON or markdown.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ctxscope.proxy.errors import ConfigError

if TYPE_CHECKING:
    from ctxscope.inspector.analysis.analyse import Analysis
    from ctxscope.inspector.analysis.cache import CacheTurn
    from ctxscope.inspector.analysis.composition import CompositionReport

__all__ = ["register", "render_cache", "render_composition"]

_BAR = 40


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def render_composition(
    report: CompositionReport, write: Callable[[str], None], *, markdown: bool = False
) -> None:
    """The composition report as text (or markdown): per turn, kinds by size, largest items."""
    for comp in report.turns:
        head = (
            f"turn {comp.turn}  {comp.thread}  {comp.change}  {comp.total:,} tokens "
            f"({comp.fill:.1%} of {comp.window:,}; compacts at {comp.threshold:,})"
        )
        write(f"## {head}" if markdown else head)
        if markdown:
            write("")
            write("| kind | tokens | share | change |")
            write("|---|---:|---:|---:|")
        for kind, tokens in comp.by_kind.items():
            share = tokens / comp.total if comp.total else 0.0
            grew = comp.growth.get(kind)
            change = f"{grew:+,}" if grew else ""
            if markdown:
                write(f"| {kind} | {tokens:,} | {share:.0%} | {change} |")
            else:
                bar = "█" * max(1, round(share * _BAR)) if tokens else ""
                write(f"  {kind:<28} {tokens:>8,}  {share:>4.0%}  {bar:<{_BAR}} {change}".rstrip())
        gone = {k: v for k, v in comp.growth.items() if k not in comp.by_kind}
        for kind, lost in gone.items():
            write(f"| {kind} | 0 | 0% | {lost:+,} |" if markdown else f"  {kind:<28} {0:>8}  gone  {lost:+,}")
        if comp.largest:
            if markdown:
                write("")
            write("  largest:" if not markdown else "Largest items:")
            for item in comp.largest:
                where = f" (turn {item.since})" if item.since != comp.turn else ""
                line = f"{item.label}{where}: {_k(item.tokens)} tokens"
                write(f"- {line}" if markdown else f"    {line}")
        if markdown:
            write("")
    if report.findings:
        write("## Findings" if markdown else "findings:")
        for finding in report.findings:
            write(
                f"- {finding.thread}: {finding.text}" if markdown else f"  {finding.thread}: {finding.text}"
            )


def render_cache(
    turns: list[CacheTurn], write: Callable[[str], None], money: dict[int, float | None] | None = None
) -> None:
    """The cache report as text: per turn predicted vs reported, and each break with its cause and,
    in `money` (turn → USD), what the lost cached tokens cost."""
    from ctxscope.inspector.analysis.cost import usd_text

    money = money or {}
    for entry in turns:
        reported = "not reported" if entry.reported_cached is None else f"{entry.reported_cached:,}"
        since = f" vs turn {entry.previous}" if entry.previous is not None else " (first of its key)"
        best = f" (from turn {entry.best_turn})" if entry.best_turn not in (None, entry.previous) else ""
        write(
            f"turn {entry.turn}  {entry.thread}  prefix {entry.prefix:,}{since}  "
            f"predicted cached {entry.predicted_cached:,}{best}  reported cached {reported}"
        )
        if entry.brk is not None:
            label = f" ({entry.brk.label})" if entry.brk.label != entry.brk.at else ""
            write(f"  ✗ prefix broke at {entry.brk.at}{label}: {entry.brk.cause}")
            usd = money.get(entry.turn)
            extra = f" ({usd_text(usd)} more than cached)" if usd is not None else ""
            write(f"    cost: {entry.brk.tokens:,} cached tokens lost{extra}")
        if entry.flag:
            write(f"  ! {entry.flag}")
        for note in entry.notes:
            write(f"  · {note}")
    breaks = [t for t in turns if t.brk is not None]
    lost = sum(t.brk.tokens for t in breaks if t.brk is not None)
    spent = [money[t.turn] for t in breaks if money.get(t.turn) is not None]
    extra = f" ({usd_text(sum(v for v in spent if v is not None))} more than cached)" if spent else ""
    write(f"{len(breaks)} break(s), {lost:,} cached tokens lost to them{extra}")


def _analysis(file: Path) -> Analysis:
    from ctxscope.inspector.analysis import analyse_recording

    return analyse_recording(file, shared_inputs=True)


def context_command(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    turn: Annotated[int | None, typer.Option("--turn", "-t", help="Only this turn (1-based).")] = None,
    output_format: Annotated[str, typer.Option("--format", help="text, json or markdown.")] = "text",
) -> None:
    """What fills the context: each turn's tokens by kind, the largest items, growth and findings."""
    from ctxscope.inspector.analysis.composition import composition_json, composition_report

    if output_format not in ("text", "json", "markdown"):
        raise ConfigError(f"--format {output_format!r}: use text, json or markdown")
    analysis = _analysis(file)
    if turn is not None:
        analysis.turn(turn)  # a one-line error for a turn that does not exist
    report = composition_report(analysis)
    if turn is not None:
        report.turns = [c for c in report.turns if c.turn == turn]
    if output_format == "json":
        sys.stdout.write(json.dumps(composition_json(report), indent=2, ensure_ascii=False) + "\n")
    else:
        render_composition(report, print, markdown=output_format == "markdown")


def cache_command(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    turn: Annotated[int | None, typer.Option("--turn", "-t", help="Only this turn (1-based).")] = None,
    output_format: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Why the prompt cache missed: predicted vs reported cached tokens, where each prefix broke and why."""
    from ctxscope.inspector.analysis.cache import cache_json, cache_report
    from ctxscope.inspector.analysis.cost import lost_cache_usd

    if output_format not in ("text", "json"):
        raise ConfigError(f"--format {output_format!r}: use text or json")
    analysis = _analysis(file)
    if turn is not None:
        analysis.turn(turn)
    turns = cache_report(analysis)
    if turn is not None:
        turns = [t for t in turns if t.turn == turn]
    models = {r.turn.number: r.turn.model for r in analysis.turns}
    money = {t.turn: lost_cache_usd(t.brk.tokens, models.get(t.turn)) for t in turns if t.brk is not None}
    if output_format == "json":
        doc = cache_json(turns)
        for entry in doc["turns"]:
            if entry["break"] is not None:
                entry["break"]["usd"] = money.get(entry["turn"])
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        render_cache(turns, print, money)


def register(app: typer.Typer) -> None:
    app.command("context")(context_command)
    app.command("cache")(cache_command)

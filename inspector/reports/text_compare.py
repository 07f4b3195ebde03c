"""Text rendering of the `compare` report: two recordings side by side, turn by turn, from the typed
report models (`reports.models.CompareReport`); differences every aligned pair shares are said once."""

from __future__ import annotations

import json
from collections.abc import Collection

from rich.console import Console

from ctxscope.inspector.analysis.compare import DIFFERENCE_FIELDS
from ctxscope.inspector.reports.build import VERDICT_WORDS, difference_words
from ctxscope.inspector.reports.models import CompareReport, PairDoc
from ctxscope.inspector.reports.terminal import Segment, line, plural

__all__ = ["render_compare"]

Segments = tuple[Segment, ...]

_VERDICT_STYLES = {"same": "green", "same_apart": "green", "differs": "yellow"}


def _sign_style(text: str) -> str:
    return "green" if text.startswith("+") else "red"


def _difference_lines(pair: PairDoc, skip: Collection[str]) -> list[Segments]:
    """The lines that say how a pair differs, field by field (`DIFFERENCE_FIELDS`), but for `skip`."""
    lines: list[Segments] = []
    for key, value in (("endpoint", pair.endpoint), ("transport", pair.transport), ("status", pair.status)):
        if value and key not in skip:
            lines.append((f"        · {key}: {value[0]} ≠ {value[1]}",))
    headers = pair.headers
    if (headers.only_a or headers.only_b or headers.changed) and "headers" not in skip:
        bits = [f"-{h}" for h in headers.only_a] + [f"+{h}" for h in headers.only_b]
        bits += [f"~{h}" for h in headers.changed]
        lines.append(("        · headers: ", " ".join(bits)))
    if "params" not in skip:
        for name, values in pair.params.items():
            lines.append((f"        · {name}: {json.dumps(values.a)} ≠ {json.dumps(values.b)}",))
    keys = pair.body_keys
    if (keys.only_a or keys.only_b) and "body_keys" not in skip:
        bits = [f"-{k}" for k in keys.only_a] + [f"+{k}" for k in keys.only_b]
        lines.append(("        · body fields: " + " ".join(bits),))
    if pair.instructions_diff and "instructions_diff" not in skip:
        lines.append((f"        · instructions differ ({len(pair.instructions_diff)} diff lines)",))
    tools = pair.tools
    bits = [f"-{n}" for n in tools.removed] + [f"+{n}" for n in tools.added]
    bits += [f"~{n}" for n in tools.changed]
    if bits and "tools" not in skip:
        lines.append(("        · tools: ", " ".join(bits)))
        for name, told in tools.changed.items():  # each change as text: a field, its old and new lines
            lines.append(("            ", (f"~{name}", "bold")))
            for row in told:
                lines.append(("              ", (row, _sign_style(row) if row[:1] in "+-" else "dim")))
    if "items_diff" not in skip:
        for said in pair.items_diff:
            lines.append(("        · items ", (said, _sign_style(said))))
    if "fragments_diff" not in skip:
        for fragment in pair.fragments_diff:
            where = f"A item #{fragment.a_item}, B item #{fragment.b_item}"
            lines.append(("        · ", (fragment.fragment, "bold"), f" text differs ({where}):"))
            for changed in fragment.diff:
                lines.append(("            ", (changed, _sign_style(changed))))
            if fragment.more:
                lines.append((f"            … {fragment.more} more changed lines",))
    return lines


def _repeated_summary(report: CompareReport, console: Console) -> frozenset[str]:
    """Differences every aligned pair shares, said once ("identical apart from: endpoint"); the fields."""
    summary = report.summary
    repeated = summary.repeated_differences
    aligned = [p for p in report.turns if p.a_turn is not None and p.b_turn is not None]
    if not repeated or not aligned:
        return frozenset()
    words = difference_words(repeated)
    if "fragments_diff" in repeated:  # name the fragments: "context text (permissions, agents_md:<cwd>)"
        names = dict.fromkeys(f.fragment.split(":", 1)[0] for f in aligned[0].fragments_diff)
        words = words.replace("context text", f"context text ({', '.join(names)})", 1)
    if summary.identical_apart_from:
        line(
            console,
            ("identical apart from: ", "bold"),
            words,
            (f"  (all {len(aligned)} aligned turns)", "dim"),
        )
    else:
        line(
            console, ("every aligned turn differs in: ", "bold"), words, ("  (the same way each time)", "dim")
        )
    for segments in _difference_lines(aligned[0], skip=set(DIFFERENCE_FIELDS) - set(repeated)):
        line(console, *segments)
    return frozenset(repeated)


def render_compare(report: CompareReport, console: Console) -> None:
    """Two recordings side by side, turn by turn; differences every turn shares are said once."""
    summary = report.summary
    threads = report.threads
    for side, source, count in (("A", report.a, summary.turns_a), ("B", report.b, summary.turns_b)):
        thread = f"  thread {threads.a if side == 'A' else threads.b}" if threads else ""
        line(console, (f"{side} ", "bold"), source, f"{thread}  ({plural(count, 'turn')})")
    for warning in report.warnings:
        line(console, ("warning: ", "yellow"), warning)
    for note in report.notes:
        line(console, ("note: ", "yellow"), note)
    if summary.raw:
        line(console, ("compared as sent", "bold"), ("  (--raw: nothing normalised)", "dim"))
    elif summary.normalised:
        line(console, ("normalised as strict replay does: ", "bold"), "; ".join(summary.normalised))
    repeated = _repeated_summary(report, console)
    for pair in report.turns:
        row = (f"  turn {pair.turn:<3}", "bold")
        if pair.a_turn is None or pair.b_turn is None:
            side, number = ("B", pair.b_turn) if pair.a_turn is None else ("A", pair.a_turn)
            line(console, row, (f"only in {side}", "yellow"), (f"  ({side}'s turn {number})", "dim"))
            continue
        verdict = (VERDICT_WORDS.get(pair.verdict, pair.verdict), _VERDICT_STYLES.get(pair.verdict, "yellow"))
        numbers = (
            ""  # the recordings' own turn numbers, when the row number is not both of them
            if pair.a_turn == pair.b_turn == pair.turn
            else f"  (A's turn {pair.a_turn}, B's turn {pair.b_turn})"
        )
        line(console, row, verdict, (numbers, "dim"))
        if pair.same_structure:
            line(console, (f"        turn {pair.turn}: same structure", "green"))
        for differs in pair.structure_diff:
            line(console, (f"        turn {pair.turn}: structure differs: {differs}", "yellow"))
        for segments in _difference_lines(pair, skip=repeated):
            line(console, *segments)
        if pair.usage:
            line(
                console,
                "        · usage: " + ", ".join(f"{k} {v.a}/{v.b}" for k, v in pair.usage.items()),
                ("  (A/B)", "dim"),
            )

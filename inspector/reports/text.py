"""Terminal rendering of report documents with rich: colour on a terminal, plain text elsewhere.

`diff` and `show` render the typed report models (`reports.models`), the documents the JSON is
written from, so text and JSON always agree; one turn's row, detail and answer are in
`reports.text_turn`, the line primitives in `reports.terminal`.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from pydantic import TypeAdapter
from rich.console import Console

from inspector.analysis.compare import DIFFERENCE_FIELDS
from inspector.reports.build import difference_words
from inspector.reports.models import CompareReport, DiffReport, ReportDoc, ShowReport, ThreadDoc, TurnDoc
from inspector.reports.terminal import KIND_STYLE, Paths, line, plural
from inspector.reports.text_turn import answer_section, detail, turn_row, world_state

__all__ = ["KIND_STYLE", "render_compare", "render_diff", "render_show", "render_text"]


def render_diff(report: DiffReport, console: Console, *, full: bool = False) -> None:
    """The timeline, thread by thread; or, with `--turn`, that turn alone in full."""
    paths = Paths(report.root)
    tok = report.tokenizer
    line(
        console,
        ("recording ", "bold"),
        report.source,
        f"  ({plural(len(report.turns), 'turn')}, {plural(len(report.threads), 'thread')}; "
        f"tokens: {tok.name}{' (estimates)' if tok.estimated else ''})",
    )
    paths.header(console)
    for warning in report.warnings:
        line(console, ("warning: ", "yellow"), paths(warning))
    if report.detail:
        # One turn asked for: that turn only (the timeline is `ctxscope diff FILE`).
        detail(console, report.detail, paths, full=full)
        return
    by_number = {t.turn: t for t in report.turns}
    for thread in report.threads:
        numbers = [n for n in thread.turns if n in by_number]
        if not numbers:
            continue
        if thread.side and len(numbers) > 1:
            _side_thread(console, thread, [by_number[n] for n in numbers])
            continue
        head = f"thread {thread.name}" + (f"  id {thread.id}" if thread.id else "")
        if thread.side:
            head += f"  side requests ({thread.side})"
        if thread.forked_from:
            head += f"  forked from turn {thread.forked_from}"
        line(console, (head, "bold"))
        for number in numbers:
            turn_row(console, by_number[number], paths)
    if not report.turns:
        line(console, "no model requests in this recording")


def _side_thread(console: Console, thread: ThreadDoc, docs: list[TurnDoc]) -> None:
    """Side requests (e.g. Codex's session titles) fold into one line: they are not the conversation."""
    turns = ", ".join(str(d.turn) for d in docs)
    failed = [d.turn for d in docs if d.status != "completed"]
    line(
        console,
        (f"thread {thread.name}", "bold"),
        (f"  {plural(len(docs), 'side request')} ({thread.side}), folded: turns {turns}", "dim"),
        (f"  [not completed: {', '.join(map(str, failed))}]" if failed else "", "bold red"),
    )


def render_show(report: ShowReport, console: Console, *, full: bool = False) -> None:
    """The full context of one request as a compact labelled layout, then its answer."""
    paths = Paths(report.root)
    turn = report.turn
    tokens = f"{'~' if turn.tokens.estimated else ''}{turn.tokens.total:,} tok"
    line(
        console,
        (f"turn {turn.turn}", "bold"),
        f"  thread {turn.thread}  {turn.model}  "
        f"{turn.transport} {turn.endpoint}  {turn.change.kind}  {tokens}",
    )
    paths.header(console)
    if report.instructions:
        first = report.instructions.strip().splitlines()[0] if report.instructions.strip() else ""
        line(
            console,
            ("instructions: ", "bold"),
            f"{len(report.instructions):,} chars: ",
            (first if full else first[:80], "dim"),
        )
    line(console, ("tools: ", "bold"), ", ".join(report.tools) or "none")
    for item in report.input:
        style = "cyan" if item.kind not in ("user_message", "assistant_message") else ""
        if item.kind.startswith("unknown"):
            style = "bold red"
        line(
            console,
            (f"  {item.position:>3}  ", "dim"),
            (paths(item.label), style),
            (f"  {item.tokens} tok", "dim"),
        )
    world_state(console, report.world_state, paths)
    answer_section(console, turn.answer, full=full)


Segments = tuple[tuple[str, str] | str, ...]


def _difference_lines(pair: dict[str, Any], skip: Collection[str]) -> list[Segments]:
    """The lines that say how a pair differs, field by field (`DIFFERENCE_FIELDS`), but for `skip`."""
    lines: list[Segments] = []
    for key in ("endpoint", "transport", "status"):
        if pair[key] and key not in skip:
            lines.append((f"        · {key}: {pair[key][0]} ≠ {pair[key][1]}",))
    headers = pair["headers"]
    if (headers["only_a"] or headers["only_b"] or headers["changed"]) and "headers" not in skip:
        bits = [f"-{h}" for h in headers["only_a"]] + [f"+{h}" for h in headers["only_b"]]
        bits += [f"~{h}" for h in headers["changed"]]
        lines.append(("        · headers: ", " ".join(bits)))
    if "params" not in skip:
        for name, values in pair["params"].items():
            lines.append((f"        · {name}: {json.dumps(values['a'])} ≠ {json.dumps(values['b'])}",))
    keys = pair["body_keys"]
    if (keys["only_a"] or keys["only_b"]) and "body_keys" not in skip:
        bits = [f"-{k}" for k in keys["only_a"]] + [f"+{k}" for k in keys["only_b"]]
        lines.append(("        · body fields: " + " ".join(bits),))
    if pair["instructions_diff"] and "instructions_diff" not in skip:
        lines.append((f"        · instructions differ ({len(pair['instructions_diff'])} diff lines)",))
    tools = pair["tools"]
    bits = [f"-{n}" for n in tools["removed"]] + [f"+{n}" for n in tools["added"]]
    bits += [f"~{n}" for n in tools["changed"]]
    if bits and "tools" not in skip:
        lines.append(("        · tools: ", " ".join(bits)))
    if "items_diff" not in skip:
        for said in pair["items_diff"]:
            lines.append(("        · items ", (said, "green" if said.startswith("+") else "red")))
    return lines


def _repeated_summary(report: dict[str, Any], console: Console) -> frozenset[str]:
    """Differences every aligned pair shares, said once ("identical apart from: endpoint"); the fields."""
    summary = report["summary"]
    repeated = summary.get("repeated_differences") or []
    aligned = [p for p in report["turns"] if p["a_turn"] is not None and p["b_turn"] is not None]
    if not repeated or not aligned:
        return frozenset()
    words = difference_words(repeated)
    if summary.get("identical_apart_from"):
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


def render_compare(report: dict[str, Any], console: Console) -> None:
    """Two recordings side by side, turn by turn; differences every turn shares are said once."""
    summary = report["summary"]
    threads = report.get("threads") or {}
    for side in ("a", "b"):
        thread = f"  thread {threads[side]}" if threads else ""
        count = plural(summary[f"turns_{side}"], "turn")
        line(console, (f"{side.upper()} ", "bold"), report[side], f"{thread}  ({count})")
    for warning in report["warnings"]:
        line(console, ("warning: ", "yellow"), warning)
    for note in report["notes"]:
        line(console, ("note: ", "yellow"), note)
    repeated = _repeated_summary(report, console)
    apart = bool(summary.get("identical_apart_from"))
    for pair in report["turns"]:
        row = (f"  turn {pair['turn']:<3}", "bold")
        if pair["a_turn"] is None or pair["b_turn"] is None:
            side, number = ("B", pair["b_turn"]) if pair["a_turn"] is None else ("A", pair["a_turn"])
            line(console, row, (f"only in {side}", "yellow"), (f"  ({side}'s turn {number})", "dim"))
            continue
        verdict = ("same", "green") if pair["same"] else ("differs", "yellow")
        if apart:
            verdict = ("same apart from the above", "green")
        numbers = (
            ""  # the recordings' own turn numbers, when the row number is not both of them
            if pair["a_turn"] == pair["b_turn"] == pair["turn"]
            else f"  (A's turn {pair['a_turn']}, B's turn {pair['b_turn']})"
        )
        line(console, row, verdict, (numbers, "dim"))
        if pair.get("same_structure"):
            line(console, (f"        turn {pair['turn']}: same structure", "green"))
        for differs in pair.get("structure_diff", []):
            line(console, (f"        turn {pair['turn']}: structure differs: {differs}", "yellow"))
        for segments in _difference_lines(pair, skip=repeated):
            line(console, *segments)
        usage = pair["usage"]
        if usage:
            line(
                console,
                "        · usage: " + ", ".join(f"{k} {v['a']}/{v['b']}" for k, v in usage.items()),
                ("  (A/B)", "dim"),
            )


def render_text(
    report: DiffReport | ShowReport | CompareReport | dict[str, Any], console: Console, *, full: bool = False
) -> None:
    """Render any report document (a model, or its `wire()` form); `full` prints whole texts."""
    doc = TypeAdapter(ReportDoc).validate_python(report) if isinstance(report, dict) else report
    if isinstance(doc, DiffReport):
        render_diff(doc, console, full=full)
    elif isinstance(doc, ShowReport):
        render_show(doc, console, full=full)
    else:
        render_compare(doc.wire(), console)

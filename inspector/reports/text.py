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
from inspector.reports.build import VERDICT_WORDS, difference_words
from inspector.reports.models import CompareReport, DiffReport, ReportDoc, ShowReport, ThreadDoc, TurnDoc
from inspector.reports.terminal import KIND_STYLE, Paths, line, plural
from inspector.reports.text_turn import answer_section, detail, turn_row, world_state
from proxy.responses.vocabulary import side_label

__all__ = ["KIND_STYLE", "render_compare", "render_diff", "render_show", "render_text"]


def render_diff(report: DiffReport, console: Console, *, full: bool = False) -> None:
    """The timeline, thread by thread; or, with `--turn`, that turn alone in full."""
    paths = Paths(report.root)
    tok = report.tokenizer
    turns = sum(1 for t in report.turns if not t.side)
    threads = sum(1 for t in report.threads if not t.side)
    beside = ", ".join(f"{side_label(k)} {n}" for k, n in sorted(report.side_requests.items()))
    line(
        console,
        ("recording ", "bold"),
        report.source,
        f"  ({plural(turns, 'turn')}, {plural(threads, 'thread')}"
        + (f"; side requests: {beside}" if beside else "")
        + f"; tokens: {tok.name}{' (estimates)' if tok.estimated else ''})",
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
            head += f"  side requests ({side_label(thread.side)})"
        if thread.forked_from:
            head += f"  forked from turn {thread.forked_from}"
        line(console, (head, "bold"))
        for run in _runs([by_number[n] for n in numbers]):
            if len(run) >= FOLD_CONTINUATIONS:
                _continuations(console, run)
            else:
                for doc in run:
                    turn_row(console, doc, paths)
    if not report.turns:
        line(console, "no model requests in this recording")


FOLD_CONTINUATIONS = 3
"""Consecutive plain goal turns (nothing new but the continuation message) fold into one line from
this many on: a goal loop of 35 turns reads `turns 5–39  goal continuations #1–#35`."""


def _plain_continuation(doc: TurnDoc) -> bool:
    """A goal turn that brought only its continuation message (and the answer before it)."""
    events = doc.goal_events
    return (
        doc.change.kind == "append"
        and [e.kind for e in events] == ["continuation"]
        and doc.world_state_changes == [events[0].sentence]
        and all(f.kind == "goal_continuation" for f in doc.fragments_changed)
        and not (doc.mode_events or doc.notes or doc.instructions_changed or doc.params)
        and not (doc.tools.added or doc.tools.removed or doc.tools.changed or doc.tools.reordered)
        and doc.status == "completed"
    )


def _runs(docs: list[TurnDoc]) -> list[list[TurnDoc]]:
    """`docs` cut into runs: each plain continuation joins the run of the one before it."""
    runs: list[list[TurnDoc]] = []
    for doc in docs:
        if runs and _plain_continuation(doc) and _plain_continuation(runs[-1][-1]):
            runs[-1].append(doc)
        else:
            runs.append([doc])
    return runs


def _continuations(console: Console, run: list[TurnDoc]) -> None:
    first, last = run[0], run[-1]
    numbers = [e.number for doc in (first, last) for e in doc.goal_events]
    label = first.goal_events[0].sentence.rsplit(" #", 1)[0]
    est = "~" if first.tokens.estimated else ""
    tokens = f"{est}{first.tokens.total:,} tok → {est}{last.tokens.total:,} tok"
    line(
        console,
        (f"  turns {first.turn}–{last.turn}", "bold"),
        (f"  {label}s #{numbers[0]}–#{numbers[-1]}", "cyan"),
        (f"  ({len(run)} goal turns, append, {tokens})", "dim"),
    )


def _side_thread(console: Console, thread: ThreadDoc, docs: list[TurnDoc]) -> None:
    """Side requests (e.g. Codex's session titles) fold into one line: they are not the conversation."""
    turns = ", ".join(str(d.turn) for d in docs)
    failed = [d.turn for d in docs if d.status != "completed"]
    line(
        console,
        (f"thread {thread.name}", "bold"),
        (
            f"  {plural(len(docs), 'side request')} ({side_label(thread.side or '')}), folded: turns {turns}",
            "dim",
        ),
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
        labels = [p.codex_label for p in item.parts or [] if p.codex_label]
        line(
            console,
            (f"  {item.position:>3}  ", "dim"),
            (paths(item.label), style),
            (f"  {item.tokens} tok", "dim"),
            (f"  codex: {', '.join(labels)}" if labels else "", "dim"),
        )
        for note in item.label_notes or []:
            line(console, ("        ! ", "yellow"), (note, "yellow"))
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
    if "fragments_diff" not in skip:
        for fragment in pair.get("fragments_diff", []):
            where = f"A item #{fragment['a_item']}, B item #{fragment['b_item']}"
            lines.append(("        · ", (fragment["fragment"], "bold"), f" text differs ({where}):"))
            for changed in fragment["diff"]:
                lines.append(("            ", (changed, "green" if changed.startswith("+") else "red")))
            if fragment.get("more"):
                lines.append((f"            … {fragment['more']} more changed lines",))
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


_VERDICT_STYLES = {"same": "green", "same_apart": "green", "differs": "yellow"}


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
    for pair in report["turns"]:
        row = (f"  turn {pair['turn']:<3}", "bold")
        if pair["a_turn"] is None or pair["b_turn"] is None:
            side, number = ("B", pair["b_turn"]) if pair["a_turn"] is None else ("A", pair["a_turn"])
            line(console, row, (f"only in {side}", "yellow"), (f"  ({side}'s turn {number})", "dim"))
            continue
        said = pair.get("verdict", "differs")
        verdict = (VERDICT_WORDS.get(said, said), _VERDICT_STYLES.get(said, "yellow"))
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

"""Terminal rendering of report documents with rich: colour on a terminal, plain text elsewhere.

Every report renders from its typed model (`reports.models`), the document the JSON is written
from, so text and JSON always agree. One turn's row, detail and answer are in `reports.text_turn`,
`compare` is in `reports.text_compare`, the line primitives are in `reports.terminal`.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter
from rich.console import Console

from ctxscope.inspector.reports.agents import agent_link, agent_money
from ctxscope.inspector.reports.models import (
    AgentDoc,
    CompareReport,
    DiffReport,
    ReportDoc,
    ShowReport,
    ThreadDoc,
    TurnDoc,
)
from ctxscope.inspector.reports.terminal import KIND_STYLE, Paths, line, plural
from ctxscope.inspector.reports.text_compare import render_compare
from ctxscope.inspector.reports.text_turn import answer_section, detail, turn_row, world_state
from ctxscope.proxy.responses.vocabulary import side_label

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
    tokens = f"{est}{first.tokens.total:,} → {est}{last.tokens.total:,} counted"
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
    tokens = f"{'~' if turn.tokens.estimated else ''}{turn.tokens.total:,} counted"
    line(
        console,
        (f"turn {turn.turn}", "bold"),
        f"  thread {turn.thread}  {turn.model}  "
        f"{turn.transport} {turn.endpoint}  {turn.change.kind}  {tokens}",
    )
    paths.header(console)
    if report.agent is not None:
        agent_line(console, report.agent)
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


def agent_line(console: Console, agent: AgentDoc) -> None:
    """The agent that made the request: its name and path, its threads, requests and cost, and how
    it hangs in the tree."""
    link = agent_link(agent)
    line(
        console,
        ("agent: ", "bold"),
        (agent.name, "cyan"),
        f"  {agent.path}" + (" (the root)" if agent.parent is None else "") + f"  {', '.join(agent.threads)}  ",
        (f"{plural(agent.requests, 'request')}  {agent_money(agent)}", "dim"),
        (f"  {link}" if link else "", ""),
        (f"  id {agent.agent_id}" if agent.agent_id else "", "dim"),
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
        render_compare(doc, console)

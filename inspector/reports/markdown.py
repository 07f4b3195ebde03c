"""Markdown rendering of report documents (for pull requests, issues and CI summaries).

Every report renders from its typed model (`reports.models`); each turn comes with its answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import TypeAdapter

from ctxscope.inspector.analysis.compare import DIFFERENCE_FIELDS
from ctxscope.inspector.reports.agents import agent_link, agent_money
from ctxscope.inspector.reports.build import difference_words, params_to_show
from ctxscope.inspector.reports.models import (
    AgentDoc,
    AnswerDoc,
    CompareReport,
    DiffReport,
    PairDoc,
    ReportDoc,
    ShowReport,
    TurnDoc,
)
from ctxscope.inspector.reports.terminal import Paths


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text: Any) -> str:
    """`text` as an inline code span (outside tables) that survives backticks inside it: CommonMark
    ends a span only at a run of backticks as long as its opening one."""
    body = str(text).replace("\n", " ")
    fence = "`" * (max((len(run) for run in re.findall("`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def _number(value: int | None) -> str:
    return "" if value is None else str(value)  # null is "not reported"; 0 is a number


def _turn_notes(doc: TurnDoc) -> list[str]:
    notes = list(doc.world_state_changes) + [e.sentence for e in doc.mode_events]
    notes += [g.sentence for g in doc.goal_events if g.sentence not in doc.world_state_changes]
    if doc.compaction:
        notes.append(doc.compaction.sentence)
    tools = doc.tools
    bits = [f"+{n}" for n in tools.added] + [f"-{n}" for n in tools.removed]
    bits += [f"~{n}" for n in tools.changed]
    if bits:
        notes.append("tools: " + " ".join(bits))
    if doc.instructions_changed:
        notes.append("instructions changed")
    notes += [f"{k}: {json.dumps(v.before)} → {json.dumps(v.after)}" for k, v in params_to_show(doc).items()]
    notes += doc.notes
    return notes


def _answer(answer: AnswerDoc) -> list[str]:
    """A turn's answer: status, then each output item (texts in fenced blocks)."""
    usage = answer.usage
    said = f"**Answer:** {answer.status}"
    if usage.get("output_tokens") is not None:
        said += f", {usage['output_tokens']} output tokens"
    lines = [said + (f" ({_code(answer.error)})" if answer.error else ""), ""]
    for item in answer.output:
        if item.type == "function_call":
            lines.append(f"- {_code(item.kind)} {_code(item.arguments or '')}")
            continue
        lines.append(f"- {_code(item.kind)}")
        for text in (item.text if item.type != "message" or (item.text or "").strip() else None, item.plan):
            if text:
                fence = "`" * max(3, max((len(r) for r in re.findall("`+", text)), default=0) + 1)
                lines += [
                    "",
                    f"  {fence}",
                    *(f"  {row}" for row in text.strip("\n").splitlines()),
                    f"  {fence}",
                ]
        if item.type == "custom_tool_call" and item.arguments:
            lines += ["", "  ```", *(f"  {row}" for row in item.arguments.splitlines()), "  ```"]
    return lines


def _root(root: str | None) -> list[str]:
    """The root said once, before the first `./…` path."""
    return [f"Paths `./…` are relative to {_code(root)}.", ""] if Paths(root).active else []


def _diff(report: DiffReport) -> list[str]:
    rel = Paths(report.root)
    lines = [f"# ctxscope diff: {_code(report.source)}", "", *_root(report.root)]
    if report.warnings:  # a blank line ends the quote; a table right after it would join it
        lines += [*(f"> warning: {w}" for w in report.warnings), ""]
    if not report.turns:
        lines.append("No model requests in this recording.")
        return lines
    lines += [
        "| turn | thread | change | items | kept/+/- | counted tokens | reported input | reported cached "
        "| what changed | answer |",
        "|---:|---|---|---:|---|---:|---:|---:|---|---|",
    ]
    for doc in report.turns:
        c, usage = doc.change, doc.tokens.usage
        lines.append(
            f"| {doc.turn} | {doc.thread} | {c.kind} | {doc.items} | "
            f"{c.kept}/+{c.added}/-{c.removed} | {doc.tokens.total} | "
            f"{_number(usage.get('input_tokens'))} | {_number(usage.get('cached_tokens'))} | "
            f"{_cell(rel('; '.join(_turn_notes(doc))))} | {_cell(doc.answer.summary)} |"
        )
    detail = report.detail
    if detail:
        previous = detail.change.previous
        against = "first turn of its thread" if previous is None else f"vs turn {previous}"
        lines += ["", f"## Turn {detail.turn} ({against})", ""]
        lines += [
            f"- removed {_code(rel(i.label))} (turn {previous}'s [{i.position}])"
            for i in detail.removed_items
        ]
        lines += [
            f"- added {_code(rel(i.label))} ([{i.position}], {i.tokens} token{'' if i.tokens == 1 else 's'})"
            for i in detail.added_items
        ]
        for found in detail.fragments_replaced:
            verb = "re-sent after compaction, was" if found.resent else "replaces"
            lines += ["", f"{_code(rel(found.label))} {verb} {_code(rel(found.replaces))}:", ""]
            if found.fields:
                lines += [
                    f"- {k}: {_code(json.dumps(v.before))} → {_code(json.dumps(v.after))}"
                    for k, v in found.fields.items()
                ]
            if found.diff:
                lines += [
                    "```diff",
                    *(("+" if r[:1] == "+" else "-" if r[:1] == "-" else " ") + r[2:] for r in found.diff),
                    "```",
                ]
        if detail.instructions_diff:
            lines += ["", "```diff", *detail.instructions_diff, "```"]
        lines += ["", *_answer(detail.answer)]
    return lines


def _agent(agent: AgentDoc | None) -> list[str]:
    if agent is None:
        return []
    link = agent_link(agent) or "the root"
    return [
        f"agent **{agent.name}** ({_code(agent.path)}, {', '.join(agent.threads)}, {agent.requests} requests, "
        f"{agent_money(agent)}; {link})",
        "",
    ]


def _show(report: ShowReport) -> list[str]:
    turn = report.turn
    lines = [
        f"# Turn {turn.turn} of {_code(report.source)}",
        "",
        *_root(report.root),
        f"model {_code(turn.model)}, {turn.transport}, change **{turn.change.kind}**, "
        f"{turn.tokens.total} tokens",
        "",
        *_agent(report.agent),
        f"tools: {', '.join(report.tools) or 'none'}",
        "",
        "```",
    ]
    rel = Paths(report.root)
    lines += [f"{i.position:>3}  {rel(i.label)}" for i in report.input]
    return [*lines, "```", "", *_answer(turn.answer)]


def _pair_bits(pair: PairDoc) -> dict[str, list[str]]:
    """How a pair differs, as short phrases per difference field (`DIFFERENCE_FIELDS`)."""
    bits: dict[str, list[str]] = {}
    for key, value in (("endpoint", pair.endpoint), ("transport", pair.transport), ("status", pair.status)):
        if value:
            bits[key] = [f"{key} {value[0]} ≠ {value[1]}"]
    h = pair.headers
    bits["headers"] = [f"header only in A: {x}" for x in h.only_a]
    bits["headers"] += [f"header only in B: {x}" for x in h.only_b]
    bits["headers"] += [f"header {x} differs" for x in h.changed]
    bits["body_keys"] = [f"field only in A: {k}" for k in pair.body_keys.only_a]
    bits["body_keys"] += [f"field only in B: {k}" for k in pair.body_keys.only_b]
    bits["params"] = [f"{k}: {json.dumps(v.a)} ≠ {json.dumps(v.b)}" for k, v in pair.params.items()]
    bits["instructions_diff"] = ["instructions differ"] if pair.instructions_diff else []
    t = pair.tools
    bits["tools"] = [f"tool -{n}" for n in t.removed] + [f"tool +{n}" for n in t.added]
    bits["tools"] += [f"tool ~{n}: " + " ".join(f"`{x}`" for x in said) for n, said in t.changed.items()]
    bits["items_diff"] = [f"items {x}" for x in pair.items_diff]
    bits["fragments_diff"] = [
        f"{f.fragment} text differs: " + " ".join(f.diff[:6]) + (f" … {f.more} more" if f.more else "")
        for f in pair.fragments_diff
    ]
    return {key: bits[key] for key in DIFFERENCE_FIELDS if bits.get(key)}


def _aligned(report: CompareReport) -> list[PairDoc]:
    return [p for p in report.turns if p.a_turn is not None and p.b_turn is not None]


def _repeated(report: CompareReport) -> list[str]:
    """Differences every aligned pair shares, said once before the table."""
    summary = report.summary
    repeated = summary.repeated_differences
    aligned = _aligned(report)
    if not repeated or not aligned:
        return []
    words = difference_words(repeated)
    head = "Identical apart from" if summary.identical_apart_from else "Every aligned turn differs in"
    bits = _pair_bits(aligned[0])
    return [f"**{head}:** {words}", "", *[f"- {_cell(b)}" for f in repeated for b in bits.get(f, [])], ""]


_SAME_COLUMN = {"same": "yes", "same_apart": "apart from the above", "differs": "no"}
"""A pair's verdict (`Verdict`) in the table's `same` column: the one verdict every view gives."""


def _compare(report: CompareReport) -> list[str]:
    threads = report.threads
    sides = (("A", report.a, threads.a if threads else None), ("B", report.b, threads.b if threads else None))
    lines = [
        "# ctxscope compare",
        "",
        *[
            f"- {side}: {_code(source)}" + (f" (thread {thread})" if thread else "")
            for side, source, thread in sides
        ],
        "",
        *[f"> warning: {w}" for w in report.warnings],
        *[f"> note: {n}" for n in report.notes],
        *([""] if report.warnings or report.notes else []),
        *(["**Compared as sent** (`--raw`: nothing normalised)", ""] if report.summary.raw else []),
        *(
            ["**Normalised as strict replay does:** " + "; ".join(report.summary.normalised), ""]
            if report.summary.normalised
            else []
        ),
        *_repeated(report),
        "| turn | same | differences |",
        "|---:|---|---|",
    ]
    repeated = set(report.summary.repeated_differences)
    for pair in report.turns:
        if pair.a_turn is None or pair.b_turn is None:
            lines.append(f"| {pair.turn} | no | only in {'B' if pair.a_turn is None else 'A'} |")
            continue
        bits = [b for field, found in _pair_bits(pair).items() if field not in repeated for b in found]
        same = _SAME_COLUMN.get(pair.verdict, "no")
        lines.append(f"| {pair.turn} | {same} | {_cell('; '.join(bits))} |")
    structure = [
        f"- turn {p.turn}: " + ("same structure" if p.same_structure else "; ".join(p.structure_diff))
        for p in _aligned(report)
    ]
    return lines + (["", "## Structure", "", *structure] if structure else [])


def render_markdown(report: DiffReport | ShowReport | CompareReport | dict[str, Any]) -> str:
    """Markdown text of any report document (a model, or its `wire()` form)."""
    doc = TypeAdapter(ReportDoc).validate_python(report) if isinstance(report, dict) else report
    if isinstance(doc, DiffReport):
        lines = _diff(doc)
    elif isinstance(doc, ShowReport):
        lines = _show(doc)
    else:
        lines = _compare(doc)
    return "\n".join(lines) + "\n"

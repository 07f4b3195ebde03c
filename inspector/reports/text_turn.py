"""Text rendering of one turn document: its timeline row, the turn in full (`diff --turn N`: what
was added and removed, each replaced fragment diffed against the text it replaces) and its answer.

Reads the typed report models (`ctxscope.inspector.reports.models`), the same documents the JSON holds.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console

from ctxscope.inspector.analysis.answers import ToolRun
from ctxscope.inspector.analysis.changes import change_words
from ctxscope.inspector.analysis.cost import usd_text
from ctxscope.inspector.reports.build import params_to_show
from ctxscope.inspector.reports.models import (
    AnswerDoc,
    AnswerItemDoc,
    FragmentReplacedDoc,
    ItemDoc,
    TurnDetail,
    TurnDoc,
    WorldStateDoc,
)
from ctxscope.inspector.reports.terminal import KIND_STYLE, Paths, line

__all__ = ["answer_section", "detail", "tool_run_line", "turn_row", "world_state"]

CONTENT_LINES = 12
"""Lines of an added text shown before the rest is counted (`--full`: all of them)."""
ANSWER_LINES = 40
"""Lines of an answer's message, plan or tool input shown before the rest is counted."""
DIFF_CONTEXT = 2
"""Unchanged lines kept around a change in a fragment's text diff (`--full`: all of them)."""


def _tokens(doc: TurnDoc) -> str:
    est = "~" if doc.tokens.estimated else ""
    return f"{est}{doc.tokens.total:,} counted"


def _token_detail(doc: TurnDoc) -> str | None:
    """What the backend reported, for its own line under the row (None when it reported nothing)."""
    usage = doc.tokens.usage
    if usage.get("input_tokens") is None:
        return None
    return (
        f"tokens: reported input {usage['input_tokens']:,}, reported cached {usage.get('cached_tokens') or 0:,}, "
        f"predicted cached {doc.tokens.predicted_cached:,}"
    )


def _change(doc: TurnDoc) -> str:
    return change_words(doc.change.kept, doc.change.added, doc.change.removed)


def turn_row(console: Console, doc: TurnDoc, paths: Paths) -> None:
    kind = doc.change.kind
    status = "" if doc.status == "completed" else f"  [{doc.status}]"
    if doc.transport != "http":
        status = f"  [{doc.transport}]" + status
    line(
        console,
        (f"  turn {doc.turn:<3}", "bold"),
        (f"{kind:<11}", KIND_STYLE.get(kind, "")),
        f"{doc.items:>4} {'item ' if doc.items == 1 else 'items'}  {_change(doc):<18} {_tokens(doc)}",
        (status, "bold red"),
    )
    detail_line = _token_detail(doc)
    if detail_line:
        line(console, "        · ", (detail_line, "dim"))
    if doc.agent is not None:
        line(console, "        · ", (f"agent: {doc.agent} (spawned)", "cyan"))
    if doc.cost is not None and doc.cost.usd is not None:  # an unpriced model's turns say nothing
        line(console, "        · ", (f"cost: {usd_text(doc.cost.usd, api_equivalent=doc.cost.api_equivalent)}", "dim"))
    # A mode event says the collaboration-mode change better ("mode default → plan (revision 2
    # approved)"); the world-state sentence for the same field would repeat it.
    switched = any(e.kind == "mode_change" for e in doc.mode_events)
    for sentence in doc.world_state_changes:
        if not (switched and sentence.startswith("collaboration mode ")):
            line(console, "        · ", (paths(sentence), "cyan"))
    for event in doc.mode_events:
        line(console, "        · ", (paths(event.sentence), "green"))
    for goal in doc.goal_events:
        # The model's own goal call is told on the turn whose answer made it; the world-state
        # sentence of the context that carries it comes on the next request.
        if goal.sentence not in doc.world_state_changes:
            line(console, "        · ", (paths(goal.sentence), "green"))
    if doc.compaction:
        line(console, "        · ", (paths(doc.compaction.sentence), "magenta"))
    frags = doc.fragments_changed
    if frags and kind != "compaction":  # a compaction's sentence says it better than ±fragments
        labels = " ".join(("+" if f.change == "added" else "-") + paths(f.label) for f in frags)
        line(console, "        · fragments: ", (labels, "dim"))
    tools = doc.tools
    tool_bits = [f"+{n}" for n in tools.added] + [f"-{n}" for n in tools.removed]
    tool_bits += [f"~{n}" for n in tools.changed]
    if tool_bits:
        line(console, "        · tools: ", (" ".join(tool_bits), "yellow"))
    elif tools.reordered:
        line(console, "        · tools reordered (same tools; breaks the cached prefix)")
    if doc.instructions_changed:
        line(console, "        · instructions changed")
    for name, change in params_to_show(doc).items():
        line(console, f"        · {name}: {json.dumps(change.before)} → {json.dumps(change.after)}")
    for note in doc.notes:
        line(console, "        · ", (paths(note), "dim"))


def _item_line(console: Console, sign: str, item: ItemDoc, style: str, paths: Paths) -> None:
    # The section heading says whose positions these are (removed: the previous turn's; added: this one's).
    line(
        console,
        (f"    {sign} [{item.position}] ", style),
        paths(item.label),
        (f"  {item.tokens} tok", "dim"),
    )


def _size(chars: int) -> str:
    return f"{chars} chars" if chars < 1024 else f"{chars / 1024:.1f} KB"


def _text_block(console: Console, text: str, limit: int | None, indent: str = "          ") -> None:
    """`text` as `│ ` lines; past `limit` lines (None: no limit) the rest is counted."""
    lines = text.strip("\n").splitlines()
    shown = lines if limit is None else lines[:limit]
    for row in shown:
        line(console, f"{indent}│ ", row)
    if len(lines) > len(shown):
        line(
            console,
            (f"{indent}│ ", "dim"),
            (f"… {len(lines) - len(shown)} more lines (--full prints them)", "dim"),
        )


def _value(value: Any, paths: Paths) -> str:
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return paths(shown)


def _fragment_replaced(console: Console, found: FragmentReplacedDoc, paths: Paths, full: bool) -> None:
    line(
        console,
        (f"        {paths(found.label)}", "dim"),
        (
            f" re-sent after compaction (was [{found.replaces_position}] {paths(found.replaces)})"
            if found.resent
            else f" replaces previous [{found.replaces_position}] {paths(found.replaces)}",
            "dim",
        ),
    )
    for name, change in (found.fields or {}).items():
        line(
            console,
            f"          {name}: ",
            (_value(change.before, paths), "red"),
            " → ",
            (_value(change.after, paths), "green"),
        )
    lines = found.diff or []
    keep = (
        set(range(len(lines)))
        if full
        else {
            near
            for at, row in enumerate(lines)
            if not row.startswith("  ")
            for near in range(at - DIFF_CONTEXT, at + DIFF_CONTEXT + 1)
        }
    )
    previous = -1
    for at in sorted(k for k in keep if 0 <= k < len(lines)):
        if previous >= 0 and at > previous + 1:
            line(console, ("          │ …", "dim"))
        row = lines[at]
        style = {"+": "green", "-": "red"}.get(row[:1], "")
        line(console, (f"          {row[:1] if row[:1] in '+-' else '│'} ", style), (row[2:], style))
        previous = at


def _item_content(
    console: Console, item: ItemDoc, replaced: dict[str, FragmentReplacedDoc], paths: Paths, full: bool
) -> None:
    """The text an added item carries (AGENTS.md, environment, a selected skill, a tool output): a
    fragment that replaces an earlier one as its diff, any other text with its size."""
    limit = None if full else CONTENT_LINES
    # Fragment parts (AGENTS.md, environment, a skill...): a plain message's label already quotes it.
    texts = [(p.label, p.text) for p in item.parts or [] if p.values is not None]
    if not item.parts and item.text is not None:
        texts = [(item.label, item.text)]
    for label, text in texts:
        found = replaced.get(label)
        if found is not None:
            _fragment_replaced(console, found, paths, full)
            continue
        if not text:
            continue
        line(console, (f"        {paths(label)}, {_size(len(text))}", "dim"))
        _text_block(console, text, limit)


def world_state(console: Console, state: WorldStateDoc, paths: Paths) -> None:
    """The world state as `key: value` lines (multi-line values such as AGENTS.md texts by path)."""
    line(console, ("world state:", "bold"))
    for key, value in state.wire().items():
        if value in (None, [], {}):
            continue
        if isinstance(value, dict):
            line(console, f"  {key}:")
            for sub, inner in value.items():
                shown = inner if isinstance(inner, str) else json.dumps(inner, ensure_ascii=False)
                first = shown.strip().splitlines()[0] if shown.strip() else ""
                more = f" (+{len(shown.splitlines()) - 1} lines)" if len(shown.splitlines()) > 1 else ""
                line(console, f"    {paths(sub)}: ", (first + more, "dim"))
        else:
            line(console, f"  {key}: {_value(value, paths)}")


def _answer_item(console: Console, item: AnswerItemDoc, full: bool) -> None:
    limit = None if full else ANSWER_LINES
    if item.type == "message":
        line(console, ("    message", "bold"))
        if item.text and item.text.strip():
            _text_block(console, item.text, limit, indent="      ")
        if item.plan is not None:
            line(console, ("    proposed plan", "bold green"))
            _text_block(console, item.plan, limit, indent="      ")
    elif item.type == "reasoning":
        line(console, ("    reasoning", "dim"), (" (no summary)" if not item.text else "", "dim"))
        if item.text:
            _text_block(console, item.text, limit, indent="      ")
    elif item.type == "function_call":
        arguments = item.arguments or ""
        if full:
            try:
                arguments = json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
            except ValueError:
                pass
        if "\n" in arguments:
            line(console, ("    " + item.kind, "yellow"))
            _text_block(console, arguments, None, indent="      ")
        else:
            line(console, ("    " + item.kind, "yellow"), " ", arguments)
    elif item.type == "custom_tool_call":
        line(console, ("    " + item.kind, "yellow"))
        _text_block(console, item.arguments or "", limit, indent="      ")
    else:
        line(console, ("    " + item.kind, "yellow"), " ", (item.text or "", "dim"))
    ran = tool_run_line(item)
    if ran:
        line(console, ("      ran: ", "dim"), ran)


def tool_run_line(item: AnswerItemDoc) -> str:
    """How the client ran a tool call (`12 ms, exit 0`), from its own trace; "" when not known."""
    return ToolRun(item.duration_ms, item.exit_code, item.run_status).line()


def _usage(answer: AnswerDoc) -> str:
    usage = answer.usage
    if usage.get("input_tokens") is None and usage.get("output_tokens") is None:
        return "usage not reported"
    bits = [f"input {usage.get('input_tokens') or 0:,}"]
    if usage.get("cached_tokens") is not None:
        bits[0] += f" ({usage['cached_tokens']:,} cached)"
    bits.append(f"output {usage.get('output_tokens') or 0:,}")
    if usage.get("reasoning_tokens"):
        bits[-1] += f" ({usage['reasoning_tokens']:,} reasoning)"
    return ", ".join(bits) + " tokens"


def answer_section(console: Console, answer: AnswerDoc, *, full: bool = False) -> None:
    """What the request got back, after its context: each output item, status, usage."""
    style = "bold" if answer.status == "completed" else "bold red"
    line(console, ("  answer:", style), f" {answer.status}", (f"  ({_usage(answer)})", "dim"))
    if answer.error:
        line(console, "    ", (f"error: {answer.error}", "red"))
    if not answer.output:
        line(console, ("    no output items", "dim"))
    for item in answer.output:
        _answer_item(console, item, full)


def _against(doc: TurnDoc) -> str:
    previous = doc.change.previous
    return "first turn of its thread" if previous is None else f"vs turn {previous}"


def detail(console: Console, doc: TurnDetail, paths: Paths, *, full: bool = False) -> None:
    """`diff --turn N`: the turn against its predecessor, then its answer."""
    console.print()
    line(console, (f"turn {doc.turn} in full", "bold underline"), f" (thread {doc.thread}, {_against(doc)})")
    turn_row(console, doc, paths)
    if doc.removed_items:
        line(console, ("  removed", "bold red"), (f" (positions in turn {doc.change.previous}):", "dim"))
        for item in doc.removed_items:
            _item_line(console, "-", item, "red", paths)
    replaced = {f.label: f for f in doc.fragments_replaced}
    if doc.added_items:
        line(console, ("  added", "bold green"), (f" (positions in turn {doc.turn}):", "dim"))
        for item in doc.added_items:
            _item_line(console, "+", item, "green", paths)
            _item_content(
                console, item, {k: v for k, v in replaced.items() if v.position == item.position}, paths, full
            )
    if doc.instructions_diff:
        line(console, ("  instructions:", "bold"))
        for row in doc.instructions_diff:
            style = "green" if row.startswith("+") else "red" if row.startswith("-") else "dim"
            line(console, "    ", (row, style))
    for name, changed in doc.tools.changed.items():  # a field, then its old and new lines
        line(console, f"  tool {name} changed:")
        for said in changed:
            style = "green" if said.startswith("+") else "red" if said.startswith("-") else "yellow"
            line(console, "    ", (said, style))
    comp = doc.compaction
    if comp:
        line(console, ("  compaction:", "bold magenta"), f" {paths(comp.sentence)}")
        for item in comp.summarised_items:
            _item_line(console, "summarised", item, "red", paths)
        if comp.summary:
            line(console, "    summary: ", (comp.summary if full else comp.summary[:500], "italic"))
        for label in comp.rematerialised:
            line(console, "    re-materialised: ", paths(label))
    tokens = doc.tokens
    if tokens.unaccounted is not None:
        line(
            console,
            f"  tokens: counted {tokens.total:,}, reported {tokens.usage['input_tokens']:,} "
            f"({tokens.unaccounted:+,} not attributable: message framing, server-side rendering); "
            f"shared prefix {tokens.shared_prefix:,} → predicted cached {tokens.predicted_cached:,}, "
            f"reported cached {tokens.usage.get('cached_tokens') or 0:,}",
        )
    line(console, ("  tokens by kind:", "bold"))
    for kind, count in sorted(tokens.by_kind.items(), key=lambda kv: -kv[1]):
        line(console, f"    {kind:<24} {count:>8,}")
    answer_section(console, doc.answer, full=full)

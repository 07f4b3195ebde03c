"""The turn view: a turn's instructions, `input[]`, `tools[]` and parameters, each diffed against a
target turn (the previous turn of its thread, or the marked turn), with unchanged runs folded; then
the answer the request got back.

Folds are keyed by section and position (`input:0`, `instructions:40`), so a fold opened on one
turn stays open while the reader moves to the next turn of a growing session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ctxscope.inspector.analysis.analyse import TurnAnalysis
from ctxscope.inspector.analysis.changes import TurnChange, change_words, compare_turns
from ctxscope.inspector.analysis.codex_labels import label_checks
from ctxscope.inspector.analysis.diffs import (
    effective_tools,
    params_diff,
    params_of,
    tools_by_name,
    tools_diff,
)
from ctxscope.inspector.analysis.instructions import base_instructions
from ctxscope.inspector.analysis.item_diff import TextDiff, diff_items, diff_text, item_text
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.reports.terminal import Paths
from ctxscope.inspector.tui.viewmodel.actions import OpenItem, ShowTool, ToggleFold
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, clip, count

CONTEXT_LINES = 2
"""Unchanged lines kept visible around a change in a text diff."""
NEW_TEXT_LINES = 12
"""Lines of a wholly new text shown before the rest is folded."""
ITEM_DIFF_LINES = 40
"""Lines of a changed item's diff shown before the rest is folded."""
LABEL_WIDTH = 200
LINE_CHARS = 2_000
"""Longest diff line drawn; the rest is in the item's full text (Enter)."""


@dataclass
class TurnView:
    """The display lines of one turn against its target, and what the target is."""

    number: int
    target: int | None
    target_reason: str
    lines: list[Line] = field(default_factory=list)


def _fold(fold_id: str, text: str) -> Line:
    return Line.plain(f"  ... {text} (Enter to expand)", "fold", ToggleFold(fold_id))


def _diff_line(op: str, text: str, spans: Iterable[tuple[int, int]] = (), indent: str = "    ") -> Line:
    marker = {"same": " ", "added": "+", "removed": "-"}[op]
    runs = [Run(f"{indent}{marker} ", op)]
    if len(text) > LINE_CHARS:  # a 600 KB single-line value: draw its start, say what is left
        cut = len(text) - LINE_CHARS
        text = text[:LINE_CHARS]
        spans = [(a, min(b, LINE_CHARS)) for a, b in spans if a < LINE_CHARS]
        return Line((*_runs(runs, op, text, spans), Run(f" ... {cut:,} more characters", "fold")))
    return Line(tuple(_runs(runs, op, text, spans)))


def _runs(runs: list[Run], op: str, text: str, spans: Iterable[tuple[int, int]]) -> list[Run]:
    pos = 0
    for start, end in spans:
        if start > pos:
            runs.append(Run(text[pos:start], op))
        runs.append(Run(text[start:end], f"{op}-strong"))
        pos = end
    runs.append(Run(text[pos:], op if op != "same" else ""))
    return runs


def text_diff_lines(
    diff: TextDiff, fold_id: str, expanded: set[str], *, indent: str = "    ", limit: int | None = None
) -> list[Line]:
    """Diff lines with runs of unchanged lines longer than the context folded (unless expanded)."""
    out: list[Line] = []
    lines = diff.lines
    if diff.whole:
        out.append(Line.plain(f"{indent}(too large to diff line by line: shown whole)", "warn"))
    elif not diff.char_level:
        out.append(Line.plain(f"{indent}(some lines too long to diff by character)", "dim"))
    index = 0
    while index < len(lines):
        if lines[index].op != "same":
            line = lines[index]
            out.append(_diff_line(line.op, line.text, line.spans, indent))
            index += 1
            continue
        end = index
        while end < len(lines) and lines[end].op == "same":
            end += 1
        head = 0 if index == 0 else CONTEXT_LINES
        tail = 0 if end == len(lines) else CONTEXT_LINES
        key = f"{fold_id}:{index}"
        if end - index > head + tail + 1 and key not in expanded:
            out += [_diff_line("same", lines[i].text, indent=indent) for i in range(index, index + head)]
            out.append(_fold(key, count(end - index - head - tail, "unchanged line")))
            out += [_diff_line("same", lines[i].text, indent=indent) for i in range(end - tail, end)]
        else:
            out += [_diff_line("same", lines[i].text, indent=indent) for i in range(index, end)]
        index = end
    if limit is not None and len(out) > limit and f"{fold_id}:all" not in expanded:
        rest = len(out) - limit
        out = [*out[:limit], _fold(f"{fold_id}:all", count(rest, "more line"))]
    return out


def _section(title: str, summary: str = "") -> Line:
    runs = [Run(title, "title")]
    if summary:
        runs.append(Run(f"  {summary}", "dim"))
    return Line(tuple(runs))


def _instructions(result: TurnAnalysis, target: TurnAnalysis | None, expanded: set[str]) -> list[Line]:
    now = base_instructions(result.turn)
    before = base_instructions(target.turn) if target else None
    lines_now = now.text.count("\n") + 1 if now.text else 0
    if before is None:
        out = [_section("instructions", f"{now.source}, {count(lines_now, 'line')}")]
        diff = diff_text("", now.text)
        return out + text_diff_lines(diff, "instructions", expanded, limit=NEW_TEXT_LINES)
    if before.text == now.text:
        out = [_section("instructions", f"unchanged ({now.source}, {count(lines_now, 'line')})")]
        if "instructions:same" in expanded:
            return out + [_diff_line("same", line) for line in now.text.splitlines()]
        return [*out, _fold("instructions:same", count(lines_now, "unchanged line"))]
    out = [_section("instructions", f"changed ({before.source} -> {now.source})")]
    return out + text_diff_lines(diff_text(before.text, now.text), "instructions", expanded)


def _item_line(op: str, item: Item, turn: int, paths: Paths, side: str = "", note: str = "") -> Line:
    """One item; `side` says whose position it is where both appear (`old`: the target turn's, `new`:
    this turn's)."""
    marker = {"added": "+", "removed": "-", "changed": "~", "same": "="}[op]
    runs = [
        Run(f"  {marker} ", op),
        # a space even past 4 digits: `#1995 assistant`, never `#1995assistant`
        Run(f"{side + ' ' if side else ''}#{item.position:<4} ", "dim"),
        Run(clip(paths(item.label), LABEL_WIDTH), op if op != "same" else ""),
        Run(f"  {item.tokens} tok", "dim"),
    ]
    if note:
        runs.append(Run(f"  ({note})", "dim"))
    return Line(tuple(runs), OpenItem(turn, item.position))


def _label_notes(item: Item) -> list[Line]:
    """Where Codex's own part labels and our recognisers disagree on the item (see `codex_labels`)."""
    return [Line.plain(f"      ! {check.note()}", "note") for check in label_checks(item) if not check.agrees]


def _change(result: TurnAnalysis, target: TurnAnalysis | None) -> TurnChange:
    """The analysis's change against the target: the turn's own when the target is its previous turn,
    else the same comparison against the marked turn (one definition of kept, added and removed)."""
    if target is None or target.turn.number == result.change.previous:
        return result.change
    return compare_turns(target.turn.items, result.turn.items, previous_number=target.turn.number)


def _input(result: TurnAnalysis, target: TurnAnalysis | None, expanded: set[str], paths: Paths) -> list[Line]:
    """`input[]` as the analysis counts it: the kept prefix, then what the target had after it (old
    positions) and what this turn has instead (new positions), paired where an item was edited."""
    items = result.turn.items
    here, there = result.turn.number, target.turn.number if target else 0
    change = _change(result, target)
    summary = f"{count(len(items), 'item')}: " + change_words(change.kept, len(change.added), len(change.removed))
    both = target is not None and bool(change.removed)  # old and new positions side by side
    old, new = ("old", "new") if both else ("", "")
    if both:
        summary += f"  (old #: turn {there}'s positions, new #: this turn's)"
    out = [_section("input[]", summary)]
    if change.kept:
        if "input:0" in expanded or change.kept == 1:
            for item in items[: change.kept]:
                out += [_item_line("same", item, here, paths, "   " if both else ""), *_label_notes(item)]
        else:
            span = f"#0-#{change.kept - 1}"
            out.append(_fold("input:0", f"{count(change.kept, 'unchanged item')} {span}"))
    for step in diff_items(change.removed, change.added):
        if step.op == "same" and step.before is not None and step.after is not None:
            was, now = step.before.position, step.after.position
            key = f"input:{now}"
            if key in expanded or step.count == 1:
                for k in range(step.count):
                    before, after = change.removed[was - change.kept + k], items[now + k]
                    out.append(_item_line("removed", before, there, paths, old))
                    out.append(_item_line("added", after, here, paths, new, f"the same as old #{before.position}"))
            else:
                moved = f"old #{was}-#{was + step.count - 1} -> new #{now}-#{now + step.count - 1}"
                out.append(_fold(key, f"{count(step.count, 'item')} sent again after the break, unchanged: {moved}"))
        elif step.op == "added" and step.after is not None:
            out += [_item_line("added", step.after, here, paths, new), *_label_notes(step.after)]
        elif step.op == "removed" and step.before is not None:
            out.append(_item_line("removed", step.before, there, paths, old))
        elif step.before is not None and step.after is not None:
            out.append(_item_line("removed", step.before, there, paths, old))
            out += [
                _item_line("changed", step.after, here, paths, new, f"edited old #{step.before.position}"),
                *_label_notes(step.after),
            ]
            diff = diff_text(item_text(step.before), item_text(step.after))
            fold_id = f"item:{step.after.position}"
            out += text_diff_lines(diff, fold_id, expanded, indent="      ", limit=ITEM_DIFF_LINES)
    return out


def _tools(result: TurnAnalysis, target: TurnAnalysis | None, expanded: set[str]) -> list[Line]:
    now = tools_by_name(effective_tools(result.turn.body, result.turn.raw_input))
    if target is None:
        out = [_section("tools[]", count(len(now), "tool"))]
        return out + [Line.plain(f"  + {name}", "added", ShowTool(name)) for name in now]
    if target.turn.number == result.change.previous:
        diff = result.tools  # the analysis compares across a tool-less compaction request
    else:
        diff = tools_diff(
            effective_tools(target.turn.body, target.turn.raw_input),
            effective_tools(result.turn.body, result.turn.raw_input),
        )
    same = [n for n in now if n not in diff.added and n not in diff.changed]
    summary = f"{count(len(now), 'tool')}: +{len(diff.added)} -{len(diff.removed)} ~{len(diff.changed)}"
    if diff.reordered:
        summary += ", reordered (breaks the cached prefix)"
    out = [_section("tools[]", summary)]
    out += [Line.plain(f"  + {name}", "added", ShowTool(name)) for name in diff.added]
    out += [Line.plain(f"  - {name}", "removed") for name in diff.removed]
    for name, paths in diff.changed.items():
        out.append(Line.plain(f"  ~ {name}", "changed", ShowTool(name)))
        out += [Line.plain(f"      {clip(p, LABEL_WIDTH)}", "dim") for p in paths]
    if same:
        if "tools:same" in expanded:
            out += [Line.plain(f"  = {name}", "", ShowTool(name)) for name in same]
        else:
            out.append(_fold("tools:same", f"{count(len(same), 'unchanged tool')}"))
    return out


def _value(value: Any) -> str:
    return clip(json.dumps(value, ensure_ascii=False, default=str), 80)


def _params(result: TurnAnalysis, target: TurnAnalysis | None, expanded: set[str]) -> list[Line]:
    now = params_of(result.turn.body, result.turn.raw_input)
    if target is not None and target.turn.number == result.change.previous:
        changed = result.params
    else:
        changed = (
            params_diff(target.turn.body, result.turn.body, target.turn.raw_input, result.turn.raw_input)
            if target
            else {}
        )
    out = [_section("parameters", f"{len(now)} set, {len(changed)} changed")]
    for key, (old, new) in changed.items():
        out.append(Line.plain(f"  ~ {key}: {_value(old)} -> {_value(new)}", "changed"))
    same = [k for k in now if k not in changed]
    if same and ("params:same" in expanded or target is None):
        out += [Line.plain(f"    {k}: {_value(now[k])}") for k in same]
    elif same:
        out.append(_fold("params:same", count(len(same), "unchanged parameter")))
    return out


def _answer(result: TurnAnalysis, target: TurnAnalysis | None, expanded: set[str]) -> list[Line]:
    """What the request got back, after its context: each output item, the status, the usage."""
    answer = result.answer
    out = [_section("answer", f"{answer.status}, {answer.usage_line()}")]
    if answer.error:
        out.append(Line.plain(f"  error: {clip(answer.error, LABEL_WIDTH)}", "error"))
    if not answer.items:
        out.append(Line.plain("  no output items", "dim"))
    for n, item in enumerate(answer.items):
        key = f"answer:{n}"
        texts = [t for t in (item.text, item.plan) if t] if item.type != "function_call" else []
        if item.type == "custom_tool_call" and item.arguments:
            texts = [item.arguments]
        head = item.kind if texts else item.step.line()
        out.append(Line((Run("  > ", "added"), Run(clip(head, LABEL_WIDTH), "added"))))
        for text in texts:
            if text is item.plan:
                out.append(Line.plain("    proposed plan", "modemark"))
            lines = text.strip("\n").splitlines()
            shown = lines if key in expanded else lines[:NEW_TEXT_LINES]
            out += [Line.plain(f"    {clip(row, LINE_CHARS)}") for row in shown]
            if len(shown) < len(lines):
                out.append(_fold(key, count(len(lines) - len(shown), "more line")))
    return out


def turn_view(
    result: TurnAnalysis,
    target: TurnAnalysis | None,
    *,
    reason: str,
    expanded: set[str],
    root: str | None = None,
) -> TurnView:
    """All sections of a turn diffed against `target` (None: shown whole, as new)."""
    turn = result.turn
    view = TurnView(turn.number, target.turn.number if target else None, reason)
    against = f"vs turn {target.turn.number} ({reason})" if target else "(first turn of its thread)"
    view.lines.append(
        Line(
            (
                Run(f"Turn {turn.number}", "title"),
                Run(f" {turn.thread} {result.change.kind} {turn.model or '?'}"),
            )
        )
    )
    view.lines.append(Line.plain(f"  {against}", "dim"))
    status = turn.status + (f": {turn.error}" if turn.error else "")
    if turn.status != "completed":
        view.lines.append(Line.plain(f"  status {clip(status, LABEL_WIDTH)}", "error"))
    paths = Paths(root)
    view.lines += [Line.plain(f"  note: {clip(paths(n), LABEL_WIDTH)}", "note") for n in result.notes]
    view.lines += [Line.plain(f"  {clip(paths(e.sentence), LABEL_WIDTH)}", "modemark") for e in result.mode_events]
    paths = Paths(root)
    if paths.active:
        view.lines.append(Line.plain(f"  paths ./… are relative to {root}", "dim"))
    sections = (_instructions, lambda r, t, e: _input(r, t, e, paths), _tools, _params, _answer)
    for section in sections:
        view.lines.append(Line.plain(""))
        view.lines += section(result, target, expanded)
    return view


__all__ = ["TurnView", "text_diff_lines", "turn_view"]

"""Report documents: the analysis turned into plain JSON-ready dicts (schema `ctxscope-report/1`).

Every output format renders these dicts, so the JSON a CI job asserts on and the text a person
reads never disagree. The schema is documented in `docs/report-schema.md`; add fields freely,
but bump the version for any removal or change of meaning.
"""

from __future__ import annotations

from typing import Any

from inspector.analysis.analyse import Analysis, TurnAnalysis
from inspector.analysis.compaction import CompactionReport
from inspector.analysis.compare import Comparison, TurnComparison
from inspector.analysis.diffs import ToolDiff, tool_name
from inspector.analysis.instructions import effective_instructions
from inspector.analysis.items import Item
from inspector.analysis.tokens import get_tokenizer

SCHEMA = "ctxscope-report/1"


def _head(kind: str) -> dict[str, Any]:
    tokenizer = get_tokenizer()
    return {
        "schema": SCHEMA,
        "report": kind,
        "tokenizer": {"name": tokenizer.name, "estimated": tokenizer.estimated},
    }


def item_doc(item: Item, *, text: bool = False) -> dict[str, Any]:
    """One classified item."""
    doc: dict[str, Any] = {
        "position": item.position,
        "type": item.type,
        "role": item.role,
        "kind": item.kind,
        "label": item.label,
        "tokens": item.tokens,
    }
    if item.parts:
        doc["parts"] = [
            {
                "kind": p.kind,
                "label": p.label,
                "tokens": p.tokens,
                **({"values": p.values} if p.is_fragment else {}),
                **({"text": p.text} if text else {}),
            }
            for p in item.parts
        ]
    if text and not item.parts:
        doc["text"] = item.text
    return doc


def tools_doc(diff: ToolDiff) -> dict[str, Any]:
    """Tools added/removed/changed by name."""
    return {
        "added": diff.added,
        "removed": diff.removed,
        "changed": diff.changed,
        "reordered": diff.reordered,
    }


def _fragments_changed(result: TurnAnalysis) -> list[dict[str, str]]:
    out = [
        {"change": "added", "kind": p.kind, "label": p.label}
        for i in result.change.added
        for p in i.fragments
    ]
    out += [
        {"change": "removed", "kind": p.kind, "label": p.label}
        for i in result.change.removed
        for p in i.fragments
    ]
    return out


def compaction_doc(report: CompactionReport, *, detail: bool = False) -> dict[str, Any]:
    """Compaction forensics of one turn."""
    doc: dict[str, Any] = {
        "sentence": report.sentence,
        "trigger": report.trigger,
        "request_turn": report.request_turn,
        "summarised": len(report.summarised),
        "dropped_context": len(report.dropped_context),
        "kept": len(report.kept),
        "kept_in_place": report.kept_in_place,
        "rematerialised": [i.label for i in report.rematerialised],
        "tokens_before": report.tokens_before,
        "tokens_after": report.tokens_after,
        "summary": report.summary,
    }
    if detail:
        doc["summarised_items"] = [item_doc(i) for i in report.summarised]
        doc["dropped_context_items"] = [item_doc(i) for i in report.dropped_context]
        doc["kept_items"] = [item_doc(i) for i in report.kept]
    return doc


def turn_doc(result: TurnAnalysis) -> dict[str, Any]:
    """One row of the timeline."""
    turn, change, tokens = result.turn, result.change, result.tokens
    return {
        "turn": turn.number,
        "thread": turn.thread,
        "exchange": turn.exchange.id,
        "transport": turn.transport,
        "endpoint": turn.endpoint,
        "model": turn.model,
        "request_kind": turn.request_kind,
        "status": turn.status,
        "error": turn.error,
        "items": len(turn.items),
        "sent_items": turn.sent_items,
        "change": {
            "kind": change.kind,
            "previous": change.previous,
            "kept": change.kept,
            "added": len(change.added),
            "removed": len(change.removed),
        },
        "fragments_changed": _fragments_changed(result),
        "world_state_changes": result.state_changes,
        "instructions_changed": bool(result.instructions_diff),
        "tools": tools_doc(result.tools),
        "params": {k: {"before": a, "after": b} for k, (a, b) in result.params.items()},
        "tokens": {
            "total": tokens.total,
            "estimated": tokens.estimated,
            "by_kind": tokens.by_kind,
            "usage": tokens.usage,
            "unaccounted": tokens.unaccounted,
            "shared_prefix": tokens.shared_prefix,
            "predicted_cached": tokens.predicted_cached,
        },
        "compaction": compaction_doc(result.compaction) if result.compaction else None,
        "notes": result.notes,
    }


def params_to_show(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A turn document's parameter changes that its world-state sentences do not already say.

    `model` and a `reasoning` change of the effort alone are described as world state ("model a →
    b", "reasoning effort low → high"); a renderer that printed both would say the same twice.
    """
    said = doc["world_state_changes"]
    out: dict[str, dict[str, Any]] = {}
    for name, change in doc["params"].items():
        if name == "model" and any(s.startswith("model ") for s in said):
            continue
        if (
            name == "reasoning"
            and any(s.startswith("reasoning effort ") for s in said)
            and _without_effort(change["before"]) == _without_effort(change["after"])
        ):
            continue
        out[name] = change
    return out


def _without_effort(value: Any) -> Any:
    return {k: v for k, v in value.items() if k != "effort"} if isinstance(value, dict) else value


def turn_detail(result: TurnAnalysis) -> dict[str, Any]:
    """One turn against its predecessor, in full."""
    return {
        **turn_doc(result),
        "added_items": [item_doc(i, text=True) for i in result.change.added],
        "removed_items": [item_doc(i, text=True) for i in result.change.removed],
        "instructions_diff": result.instructions_diff,
        "world_state": result.state,
        "compaction": compaction_doc(result.compaction, detail=True) if result.compaction else None,
    }


def diff_report(analysis: Analysis, *, turn: int | None = None, thread: str | None = None) -> dict[str, Any]:
    """The `ctxscope diff` document: threads, the timeline, and optionally one turn in full."""
    rows = analysis.turns
    if thread is not None:
        chosen = analysis.thread(thread)
        rows = [r for r in rows if r.turn.thread == chosen.name]
    return {
        **_head("diff"),
        "source": analysis.source,
        "warnings": analysis.warnings,
        "threads": [
            {"name": t.name, "id": t.hint, "turns": [x.number for x in t.turns], "forked_from": t.forked_from}
            for t in analysis.threads
        ],
        "turns": [turn_doc(r) for r in rows],
        "detail": turn_detail(analysis.turn(turn)) if turn is not None else None,
    }


def show_report(analysis: Analysis, number: int) -> dict[str, Any]:
    """The `ctxscope show` document: the full context of one request."""
    result = analysis.turn(number)
    body = result.turn.body
    return {
        **_head("show"),
        "source": analysis.source,
        "turn": turn_doc(result),
        "instructions": effective_instructions(body, result.turn.items) or None,
        "tools": [tool_name(t) for t in body.get("tools") or []],
        "layout": [i.label for i in result.turn.items],
        "input": [item_doc(i, text=True) for i in result.turn.items],
        "world_state": result.state,
    }


def _pair_doc(pair: TurnComparison) -> dict[str, Any]:
    return {
        "turn": pair.index,
        "a_turn": pair.a.turn.number if pair.a else None,
        "b_turn": pair.b.turn.number if pair.b else None,
        "same": pair.same,
        "endpoint": list(pair.endpoint) if pair.endpoint else None,
        "transport": list(pair.transport) if pair.transport else None,
        "headers": {
            "only_a": pair.headers_only_a,
            "only_b": pair.headers_only_b,
            "changed": {k: list(v) for k, v in pair.headers_changed.items()},
        },
        "params": {k: {"a": a, "b": b} for k, (a, b) in pair.params.items()},
        "body_keys": {"only_a": pair.body_keys_only_a, "only_b": pair.body_keys_only_b},
        "instructions_diff": pair.instructions,
        "tools": tools_doc(pair.tools),
        "items_diff": pair.items,
        "usage": {k: {"a": a, "b": b} for k, (a, b) in pair.usage.items()},
        "status": list(pair.status) if pair.status else None,
    }


def compare_report(comparison: Comparison) -> dict[str, Any]:
    """The `ctxscope compare` document."""
    pairs = comparison.turns
    return {
        **_head("compare"),
        "a": comparison.a.source,
        "b": comparison.b.source,
        "warnings": [f"A: {w}" for w in comparison.a.warnings] + [f"B: {w}" for w in comparison.b.warnings],
        "notes": comparison.notes,
        "summary": {
            "turns_a": len(comparison.a.turns),
            "turns_b": len(comparison.b.turns),
            "same_turns": sum(1 for p in pairs if p.same),
        },
        "turns": [_pair_doc(p) for p in pairs],
    }

"""The data of a self-contained HTML report: the one analysis's turn documents, set out for a page.

Every turn is its `TurnDetail` (the same document `ctxscope diff --turn N --format json` prints,
answer included, in the report model's own shape), with the turn's context composition, its cache
figures and its search places (the TUI's definition of a hit). Full
item texts are moved out of the turn documents into one table of texts (by content hash, so a text
sent on many turns is stored once) that the page decodes only when a text is first opened: a long
recording's page draws its first turn without parsing every prompt it ever sent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.cache import cache_json, cache_report
from ctxscope.inspector.analysis.composition import composition_json, composition_report
from ctxscope.inspector.analysis.cost import usd_text
from ctxscope.inspector.analysis.query import turn_places
from ctxscope.inspector.reports.build import diff_report, turn_detail

__all__ = ["ReportData", "report_data"]

_TEXT_INLINE = 240
"""Texts up to this length stay in the turn document; longer ones go to the table of texts."""


@dataclass
class ReportData:
    """What the page shows: the report head, one document per turn, and the texts table."""

    head: dict[str, Any]
    turns: list[dict[str, Any]]
    texts: dict[str, str] = field(default_factory=dict)


def _text_id(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _move_texts(node: Any, texts: dict[str, str]) -> Any:
    """`node` with every long `text` value replaced by a reference (`text_ref`) into `texts`."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "text" and isinstance(value, str) and len(value) > _TEXT_INLINE:
                ref = _text_id(value)
                texts.setdefault(ref, value)
                out["text_ref"] = ref
                out["text_preview"] = value[:_TEXT_INLINE]
            else:
                out[key] = _move_texts(value, texts)
        return out
    if isinstance(node, list):
        return [_move_texts(v, texts) for v in node]
    return node


def _places(result: TurnAnalysis, seen: set[str], texts: dict[str, str]) -> list[dict[str, str]]:
    """The turn's search places (`query.turn_places`, the TUI's), their texts in the texts table:
    the page's script counts a hit per matching place, as the TUI does."""
    out = []
    for place in turn_places(result, seen):
        ref = _text_id(place.text)
        texts.setdefault(ref, place.text)
        out.append({"where": place.where, "label": place.label, "ref": ref})
    return out


def _total_cost(turns: list[dict[str, Any]]) -> str | None:
    """The recording's cost (its turn documents' figures summed), None when nothing was priced."""
    priced = [t["cost"] for t in turns if (t.get("cost") or {}).get("usd") is not None]
    if not priced:
        return None
    total = usd_text(sum(c["usd"] for c in priced), api_equivalent=any(c["api_equivalent"] for c in priced))
    unpriced = sum(1 for t in turns if (t.get("cost") or {}).get("usd") is None and t["cost"]["reported"])
    return total + (f" ({unpriced} unpriced requests not counted)" if unpriced else "")


def report_data(analysis: Analysis, turns: Iterable[int] | None = None) -> ReportData:
    """The page's data for `analysis` (only the turns numbered in `turns`, when given)."""
    wanted = set(turns) if turns is not None else None
    report = diff_report(analysis).model_dump(mode="json", by_alias=True)
    composition = {t["turn"]: t for t in composition_json(composition_report(analysis))["turns"]}
    findings = composition_json(composition_report(analysis))["findings"]
    cache = {t["turn"]: t for t in cache_json(cache_report(analysis))["turns"]}
    agents = report.get("agents") or []
    for agent in agents:  # written as every view writes an agent's cost
        agent["cost_text"] = usd_text(agent["usd"], api_equivalent=agent["api_equivalent"])
    spawned = {n: a["name"] for a in agents if a["parent"] is not None for n in a["turns"]}
    texts: dict[str, str] = {}
    docs = []
    seen: set[str] = set()
    for result in analysis.turns:
        number = result.turn.number
        places = _places(result, seen, texts)  # every turn, so new instructions are found where they first came
        if wanted is not None and number not in wanted:
            continue
        previous = result.change.previous
        # The document `diff --turn N --format json` prints, against the same previous turn.
        detail = turn_detail(result, analysis.turn(previous) if previous is not None else None)
        doc = detail.model_dump(mode="json", by_alias=True)
        doc["composition"] = composition.get(number)
        doc["cache"] = cache.get(number)
        doc["agent"] = spawned.get(number)  # the spawned agent that made it (the head's `agents`)
        cost = doc.get("cost") or {}
        if cost.get("usd") is not None:  # the turn document's one figure, written as every view writes it
            doc["cost_text"] = usd_text(cost["usd"], api_equivalent=cost["api_equivalent"])
        doc = _move_texts(doc, texts)
        doc["search"] = places
        docs.append(doc)
    head = {
        "schema": report.get("schema"),
        "source": report.get("source"),
        "tokenizer": report.get("tokenizer"),
        "threads": report.get("threads"),
        "warnings": report.get("warnings"),
        "findings": findings,
        "turn_count": len(analysis.turns),
        "cost_text": _total_cost(report.get("turns") or []),
        "agents": agents,  # the tree, root first (`reports.agents.agent_docs`); empty without spawns
    }
    return ReportData(head, docs, texts)

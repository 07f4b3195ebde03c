"""One recording's analysis as the index's rows: every value read from the one analysis.

Turns are the analysis's turns (`Analysis.turns`, as `ctxscope diff` lists them), their columns the
report's turn document (`turn_doc`), the world state the report's (`world_state_doc`), token kinds
the composition's (`composition_report`), cache breaks the cache forensics' (`cache_report`): the
index computes no thread, turn, kind or count of its own. Texts stay out unless `with_text`
(recordings are redacted, yet a table of every item text is a copy worth asking for).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.cache import cache_report
from ctxscope.inspector.analysis.composition import _CALL_TYPES, composition_report, tool_sizes
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.index.schema import TABLES
from ctxscope.inspector.reports.build import turn_doc
from ctxscope.inspector.reports.world import describe_change, world_state_doc
from ctxscope.proxy.responses.vocabulary import CodexHeader

__all__ = ["FileFacts", "Rows", "recording_rows"]

Row = tuple[Any, ...]
Rows = dict[str, list[Row]]
"""Table name → rows, each a tuple in the table's column order."""


@dataclass(frozen=True)
class FileFacts:
    """What the index keeps about a file to know when it changed."""

    path: str
    hash: str
    size: int
    mtime: float


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)


def _client(analysis: Analysis) -> str | None:
    for result in analysis.turns:
        headers = {k.lower(): v for k, v in result.turn.exchange.request_headers.items()}
        for name in (CodexHeader.ORIGINATOR.value, "user-agent"):
            if headers.get(name):
                return headers[name].split(" ")[0]
    return None


def _usage(usage: dict[str, Any] | None, key: str, detail: str | None = None) -> int | None:
    value = (usage or {}).get(key)
    if detail is not None:
        value = value.get(detail) if isinstance(value, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _world(result: TurnAnalysis) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The world state with AGENTS.md texts as hashes, and the (path, hash) of each AGENTS.md."""
    world = world_state_doc(result.state)
    agents = world.get("agents_md")
    pairs: list[tuple[str, str]] = []
    if isinstance(agents, dict):
        pairs = [(str(path), sha256(str(text))) for path, text in agents.items()]
        world["agents_md"] = dict(pairs)
    return world, pairs


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _called(result: TurnAnalysis) -> list[str]:
    """The tools the turn's answer called (named as `tool_sizes` names offered tools)."""
    return [
        str(raw.get("name") or raw.get("type"))
        for raw in result.turn.output or []
        if isinstance(raw, dict) and raw.get("type") in _CALL_TYPES
    ]


def _item_rows(item: Item, head: Row, with_text: bool) -> list[Row]:
    if item.parts:
        return [
            (
                *head,
                item.position,
                part.index,
                item.type,
                item.role,
                item.kind,
                part.kind if part.is_fragment else None,
                part.label,
                part.tokens,
                sha256(part.text),
                part.text if with_text else None,
            )
            for part in item.parts
        ]
    return [
        (
            *head,
            item.position,
            None,
            item.type,
            item.role,
            item.kind,
            None,
            item.label,
            item.tokens,
            sha256(item.text or item.key),
            item.text if with_text else None,
        )
    ]


def _items(analysis: Analysis, rec: str, day: date, with_text: bool) -> list[Row]:
    """Items each turn added, with the last turn of its thread whose context still held them."""
    open_by_turn: dict[int, list[list[Any]]] = {}
    """Turn → the rows (mutable: last_turn is filled in) of the items in its context, by position."""
    rows: list[list[Any]] = []
    for result in analysis.turns:
        turn, change = result.turn, result.change
        base = open_by_turn.get(change.previous) if change.previous is not None else None
        kept = base[: change.kept] if base is not None else []
        here: list[list[Any]] = []
        for entry in kept:
            if entry[0][2] == turn.thread:  # a fork shares its source's rows; they stay the source's
                for row in entry:
                    row[4] = turn.number
            here.append(entry)
        for item in turn.items[len(kept) :]:
            head: Row = (rec, day, turn.thread, turn.number, turn.number)
            entry = [list(r) for r in _item_rows(item, head, with_text)]
            rows.extend(entry)
            here.append(entry)
        open_by_turn[turn.number] = here
    return [tuple(r) for r in rows]


def recording_rows(analysis: Analysis, facts: FileFacts, *, with_text: bool = False) -> Rows:
    """Every table's rows for one analysed recording."""
    rec = facts.path
    created = analysis.header.created_at if analysis.header else facts.mtime
    day = _utc(created).date()
    out: Rows = {name: [] for name in TABLES}
    out["recordings"].append(
        (
            rec,
            day,
            facts.hash,
            facts.size,
            facts.mtime,
            _client(analysis),
            _utc(created),
            analysis.header.version if analysis.header else None,
            analysis.header.tool if analysis.header else None,
            len(analysis.turns),
            len(analysis.threads),
            len(analysis.warnings),
        )
    )
    for thread in analysis.threads:
        numbers = [t.number for t in thread.turns]
        out["threads"].append(
            (
                rec,
                day,
                thread.name,
                thread.hint,
                thread.forked_from,
                thread.side,
                len(numbers),
                min(numbers, default=None),
                max(numbers, default=None),
            )
        )
    for result in analysis.turns:
        doc = turn_doc(result)
        turn, usage = result.turn, result.turn.usage
        head = (rec, day, turn.thread, turn.number)
        world, agents = _world(result)
        out["turns"].append(
            (
                *head,
                doc.exchange,
                _utc(turn.exchange.started_at),
                doc.transport,
                doc.endpoint,
                doc.model,
                doc.change.kind,
                doc.change.previous,
                doc.change.kept,
                doc.change.added,
                doc.change.removed,
                doc.request_kind,
                doc.side,
                doc.items,
                doc.tokens.total,
                _usage(usage, "input_tokens"),
                _usage(usage, "input_tokens_details", "cached_tokens"),
                _usage(usage, "output_tokens"),
                doc.tokens.predicted_cached,
                turn.exchange.duration_ms,
                doc.status,
                doc.error,
                _str(world.get("cwd")),
                _str(world.get("shell")),
                _str(world.get("date")),
                _str(world.get("sandbox")),
                _str(world.get("approval")),
                world.get("network") if isinstance(world.get("network"), bool) else None,
                _str(world.get("collaboration_mode")),
                _str(world.get("reasoning_effort")),
                json.dumps(world, sort_keys=True, default=str, ensure_ascii=False),
                doc.cost.usd if doc.cost is not None else None,
                _usage(usage, "input_tokens_details", "cache_write_tokens"),
            )
        )
        out["agents_md"] += [(*head, path, digest) for path, digest in agents]
        for event in result.mode_events:
            kind = "mode" if event.kind == "mode_change" else "plan"
            out["events"].append((*head, kind, event.kind, event.sentence))
        for goal in doc.goal_events:
            out["events"].append((*head, "goal", goal.kind, goal.sentence))
        for change in result.state_changes:
            if change.field in ("goal", "goal_events"):
                continue  # told as goal events
            for sentence in describe_change(change):
                out["events"].append((*head, "world", change.field, sentence))
        if doc.compaction is not None:
            c = doc.compaction
            out["events"].append((*head, "compaction", c.trigger, c.sentence))
            out["compactions"].append(
                (
                    *head,
                    c.trigger,
                    c.request_turn,
                    c.summarised,
                    c.dropped_context,
                    c.kept,
                    c.tokens_before,
                    c.tokens_after,
                    c.sentence,
                    c.summary if with_text else None,
                )
            )
        called = _called(result)
        for name in called:
            out["events"].append((*head, "tool_call", name, None))
        if doc.status != "completed" or doc.error:
            out["events"].append((*head, "error", doc.status, doc.error))
        offered = dict(tool_sizes(turn.body.get("tools")))
        for name in [*offered, *(n for n in dict.fromkeys(called) if n not in offered)]:
            out["tools"].append((*head, name, name in offered, name in called, offered.get(name, 0)))
    out["items"] = _items(analysis, rec, day, with_text)
    for comp in composition_report(analysis).turns:
        out["composition"] += [(rec, day, comp.thread, comp.turn, k, v) for k, v in comp.by_kind.items()]
    for entry in cache_report(analysis):
        if entry.brk is None and entry.flag is None:
            continue
        brk = entry.brk
        out["cache_breaks"].append(
            (
                rec,
                day,
                entry.thread,
                entry.turn,
                entry.key,
                entry.previous,
                brk.at if brk else None,
                brk.label if brk else None,
                brk.cause if brk else None,
                brk.tokens if brk else 0,
                entry.predicted_cached,
                entry.reported_cached,
                entry.flag,
            )
        )
    for name, rows in out.items():
        width = len(TABLES[name].columns)
        assert all(len(r) == width for r in rows), name  # a column added to the schema, not here
    return out

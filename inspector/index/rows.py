"""One recording's analysis as the index's rows: every value read from the one analysis.

Turns are the analysis's turns (`Analysis.turns`, as `ctxscope diff` lists them), their columns read
from the typed turn document (`turn_doc`: change, tokens reported and counted, predicted cached,
status, mode and goal events, the answer's tool calls), the world state the report's
(`world_state_doc`), token kinds the composition's (`composition_report`), cache breaks the cache
forensics' (`cache_report`): the index computes no thread, turn, kind or count of its own. A row is
built by column name (`_row`), in the order the schema gives, so a column cannot shift. Texts stay
out unless `with_text` (recordings are redacted, yet a table of every item text is a copy worth
asking for).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime
from typing import Any, cast

import orjson

from ctxscope.inspector.analysis.agents import Agent, agent_tree
from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.cache import cache_report
from ctxscope.inspector.analysis.composition import composition_report, tool_sizes
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.index.files import FileFacts
from ctxscope.inspector.index.schema import TABLES
from ctxscope.inspector.reports.build import turn_doc
from ctxscope.inspector.reports.models import TurnDoc
from ctxscope.inspector.reports.world import describe_change, world_state_doc
from ctxscope.proxy.responses.vocabulary import CodexHeader

__all__ = ["FileFacts", "Rows", "recording_rows"]

Row = tuple[Any, ...]
Rows = dict[str, list[Row]]
"""Table name → rows, each a tuple in the table's column order."""


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _micros(seconds: float) -> int:
    """A TIMESTAMPTZ column's value: Unix microseconds (exact, so a re-index compares rows equal)."""
    return round(seconds * 1_000_000)


def _day(seconds: float) -> date:
    return datetime.fromtimestamp(seconds, UTC).date()


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


_NAMES = {name: tuple(table.names) for name, table in TABLES.items()}


def _row(table: str, **values: Any) -> Row:
    """One row of `table`, its values given by column name, in the schema's column order; a column
    missing or unknown is a bug here, said at once."""
    names = _NAMES[table]
    if tuple(values) == names:  # given in the schema's order (every call here): the values as they are
        return tuple(values.values())
    if set(values) != set(names):
        raise AssertionError(f"{table}: columns {sorted(set(names) ^ set(values))} given or missing")
    return tuple(values[name] for name in names)


def _positional(table: str, *names: str) -> None:
    """Check, once at import, that rows built as plain tuples for `table` (a table with a row per tool
    per turn, too many for `_row`'s keywords) list its columns in the schema's order."""
    if names != _NAMES[table]:
        raise AssertionError(f"{table}: columns are {_NAMES[table]}, the rows here give {names}")


_positional("tools", "recording", "day", "thread", "turn", "name", "offered", "called", "tokens")


def _called(doc: TurnDoc) -> list[str]:
    """The tools the turn's answer called, as its turn document names them (a built-in tool by its
    name, `apply_patch`, as `tool_sizes` names the offered one)."""
    return [item.name for item in doc.answer.output if item.name is not None]


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


class _Entry:
    """One item a turn added, as a node of the tree every context is a path of: a turn's context is
    its base's cut to `kept` (an ancestor of the base's last entry) plus its own entries chained
    below, so "entry e is in turn t's context" is "e is an ancestor-or-self of t's last entry"."""

    __slots__ = ("depth", "item", "jump", "last", "number", "other", "parent", "same", "thread")

    def __init__(self, parent: _Entry | None, thread: object, item: Item | None, number: int, last: int) -> None:
        # `item` added by turn `number`: its rows are made once `last` is known (one tuple per part)
        self.parent, self.thread, self.item, self.number, self.last = parent, thread, item, number, last
        # Myers' skew-binary jump pointers: set with O(1) work here, they reach the entry a cut keeps
        # in O(log depth) steps (walking up parents would cost every item the cut drops, per turn).
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.jump: _Entry = self
        if parent is not None:
            up = parent.jump
            self.jump = up.jump if parent.depth - up.depth == up.depth - up.jump.depth else parent
        # The nearest ancestor of another thread: a run of one thread's entries is crossed in one step.
        self.other: _Entry | None = parent if parent is None or parent.thread != thread else parent.other
        self.same = _nearest(parent, thread)
        """The nearest ancestor of this thread: a context's entries of one thread form this chain."""

    def ancestor(self, depth: int) -> _Entry:
        entry = self
        while entry.depth > depth:
            entry = entry.jump if entry.jump.depth >= depth else cast(_Entry, entry.parent)
        return entry


def _nearest(entry: _Entry | None, thread: object) -> _Entry | None:
    """The deepest entry of `thread` at or above `entry` (steps: the thread changes on the way)."""
    while entry is not None and entry.thread != thread:
        entry = entry.other
    return entry  # never the root: its thread is no turn's


def _items(analysis: Analysis, rec: str, day: date, with_text: bool) -> list[Row]:
    """Items each turn added, with the last turn of its thread whose context still held them.

    Linear (issue 36: copying each kept prefix and rewriting its rows was quadratic): a turn of thread
    X marks only the deepest X entry of its context (`same` chains lead from it to every other X entry
    there), and one pass from the newest entry up carries each mark to the entries above it: an entry's
    last turn is the latest turn of its thread that marked it or an entry below it on its chain.
    """
    root = _Entry(None, object(), None, 0, -1)  # depth 0: the empty context; its thread matches none
    last_of: dict[int, _Entry] = {}
    """Turn → the last entry of its context."""
    entries: list[_Entry] = []
    numbers: list[int] = []
    """Turn number by processing index (marks are indices: the latest in processing order wins)."""
    for at, result in enumerate(analysis.turns):
        turn, change = result.turn, result.change
        numbers.append(turn.number)
        base = last_of.get(change.previous) if change.previous is not None else None
        # as long as the slice `base's entries[: kept]` is, for any `kept` (more than the base holds: all)
        end = root if base is None else base.ancestor(len(range(base.depth)[: change.kept]))
        for item in turn.items[end.depth :]:
            end = _Entry(end, turn.thread, item, turn.number, at)
            entries.append(end)
        last_of[turn.number] = end
        mark = _nearest(end, turn.thread)
        if mark is not None:
            mark.last = at
    for entry in reversed(entries):  # children were made after their parents
        if entry.same is not None and entry.same.last < entry.last:
            entry.same.last = entry.last
    return [
        row
        for entry in entries
        for row in _item_rows(
            cast(Item, entry.item), (rec, day, entry.thread, entry.number, numbers[entry.last]), with_text
        )
    ]


def _agent_row(agent: Agent, tree: list[Agent], figures: dict[int, Row], rec: str, day: date) -> Row:
    """One agent of the tree with its requests' figures summed (the figures of their `turns` rows)."""
    mine = [figures[n] for n in agent.turns if n in figures]

    def total(at: int) -> float | None:
        values = [f[at] for f in mine if f[at] is not None]
        return sum(values) if values else None

    parent = next((a.path for a in tree if a.name == agent.parent), None) if agent.parent is not None else None
    return _row(
        "agents",
        recording=rec,
        day=day,
        agent=agent.path,
        nickname=agent.name,
        agent_id=agent.thread_id,
        parent=parent,
        spawn_call=agent.spawn_call,
        spawned_in=agent.spawned_in,
        result_in=agent.result_in,
        returned_in=agent.returned_in,
        threads=list(agent.threads),
        requests=len(agent.turns),
        input_tokens=total(0),
        cached_tokens=total(1),
        output_tokens=total(2),
        cost_usd=total(3),
        unpriced=sum(1 for f in mine if f[3] is None and f[0] is not None),
    )


def recording_rows(analysis: Analysis, facts: FileFacts, *, with_text: bool = False) -> Rows:
    """Every table's rows for one analysed recording."""
    rec = facts.recording
    created = analysis.header.created_at if analysis.header else facts.mtime_ns / 1e9
    day = _day(created)
    out: Rows = {name: [] for name in TABLES}
    out["recordings"].append(
        _row(
            "recordings",
            recording=rec,
            day=day,
            name=facts.name,
            path=facts.path,
            hash=facts.hash,
            size=facts.size,
            mtime_ns=facts.mtime_ns,
            inode=facts.inode,
            client=_client(analysis),
            created=_micros(created),
            format=analysis.header.version if analysis.header else None,
            tool=analysis.header.tool if analysis.header else None,
            turns=len(analysis.turns),
            threads=len(analysis.threads),
            warnings=len(analysis.warnings),
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
    agents = agent_tree(analysis)
    agent_of = {n: agent.path for agent in agents for n in agent.turns}
    figures: dict[int, Row] = {}
    """Turn → (input, cached, output tokens, cost) as its `turns` row holds them: an agent's sums."""
    tools: Any = object()  # the tools list of the turn before (none yet), `offered` its sizes by name
    offered: dict[str, int] = {}
    for result in analysis.turns:
        doc = turn_doc(result)
        turn = result.turn
        world, agents_md = _world(result)
        where = {"recording": rec, "day": day, "thread": turn.thread, "turn": turn.number}
        reported = doc.tokens.usage
        out["turns"].append(
            _row(
                "turns",
                **where,
                exchange=doc.exchange,
                started=_micros(turn.exchange.started_at),
                transport=doc.transport,
                endpoint=doc.endpoint,
                model=doc.model,
                change_kind=doc.change.kind,
                previous=doc.change.previous,
                kept=doc.change.kept,
                added=doc.change.added,
                removed=doc.change.removed,
                request_kind=doc.request_kind,
                side_kind=doc.side,
                items=doc.items,
                counted_tokens=doc.tokens.total,
                input_tokens=reported.get("input_tokens"),
                cached_tokens=reported.get("cached_tokens"),
                output_tokens=reported.get("output_tokens"),
                predicted_cached=doc.tokens.predicted_cached,
                duration_ms=turn.exchange.duration_ms,
                status=doc.status,
                error=doc.error,
                cwd=_str(world.get("cwd")),
                shell=_str(world.get("shell")),
                date=_str(world.get("date")),
                sandbox=_str(world.get("sandbox")),
                approval=_str(world.get("approval")),
                network=world.get("network") if isinstance(world.get("network"), bool) else None,
                collaboration_mode=_str(world.get("collaboration_mode")),
                reasoning_effort=_str(world.get("reasoning_effort")),
                world=orjson.dumps(world, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode(),
                cost_usd=doc.cost.usd if doc.cost is not None else None,
                cache_write_tokens=reported.get("cache_write_tokens"),
                agent=agent_of.get(turn.number),
            )
        )
        figures[turn.number] = (
            reported.get("input_tokens"),
            reported.get("cached_tokens"),
            reported.get("output_tokens"),
            doc.cost.usd if doc.cost is not None else None,
        )
        out["agents_md"] += [_row("agents_md", **where, path=path, hash=digest) for path, digest in agents_md]

        def event(kind: str, name: str | None, sentence: str | None, where: dict[str, Any] = where) -> None:
            out["events"].append(_row("events", **where, kind=kind, name=name, sentence=sentence))

        for mode in doc.mode_events:
            event("mode" if mode.kind == "mode_change" else "plan", mode.kind, mode.sentence)
        for goal in doc.goal_events:
            event("goal", goal.kind, goal.sentence)
        for change in result.state_changes:
            if change.field in ("goal", "goal_events"):
                continue  # told as goal events
            for sentence in describe_change(change):
                event("world", change.field, sentence)
        if doc.compaction is not None:
            c = doc.compaction
            event("compaction", c.trigger, c.sentence)
            out["compactions"].append(
                _row(
                    "compactions",
                    **where,
                    trigger=c.trigger,
                    request_turn=c.request_turn,
                    summarised=c.summarised,
                    dropped_context=c.dropped_context,
                    kept=c.kept,
                    tokens_before=c.tokens_before,
                    tokens_after=c.tokens_after,
                    sentence=c.sentence,
                    summary=c.summary if with_text else None,
                )
            )
        called = _called(doc)
        for name in called:
            event("tool_call", name, None)
        if doc.status != "completed" or doc.error:
            event("error", doc.status, doc.error)
        if turn.body.get("tools") is not tools:  # a recording's requests mostly share one stored list
            tools = turn.body.get("tools")
            offered = dict(tool_sizes(tools))
        head = (rec, day, turn.thread, turn.number)
        out["tools"] += [
            (*head, name, name in offered, name in called, offered.get(name, 0))  # `_positional` above
            for name in [*offered, *(n for n in dict.fromkeys(called) if n not in offered)]
        ]
    out["agents"] = [_agent_row(agent, agents, figures, rec, day) for agent in agents]
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
        widths = set(map(len, rows))  # a column added to the schema, not here
        assert widths <= {len(TABLES[name].columns)}, name
    return out

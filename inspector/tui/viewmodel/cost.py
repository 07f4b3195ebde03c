"""The cost view (`$`): what each model request cost with its token breakdown, and the sums per
thread, agent, kind (compactions and side requests apart) and model, for the whole recording.

Every figure is read from `ctxscope cost --format json`'s own document (`cost_cli.cost_document`
over `cost_cli.cost_rows` of the analysis), so the view says what the command says; this module only
lays it out. Reasoning tokens are part of the output: shown apart, never added twice. A table is
as wide as the pane: full numbers where they fit, short ones (`12.3k`) where not, and each request on
two rows (its cost, then its tokens) below that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ctxscope.inspector.analysis.cost import usd_text
from ctxscope.inspector.tui.viewmodel.actions import ShowTurn
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, count, short_tokens, short_usd, wrapped

TOKEN_FIELDS = (
    ("in", "input_tokens"),
    ("cached", "cached_tokens"),
    ("writes", "cache_write_tokens"),
    ("out", "output_tokens"),
    ("reason.", "reasoning_tokens"),
)
"""The token columns of every table: input, of it cached and cache writes, output, of it reasoning."""
GROUPS = (
    ("thread", "threads", "thread"),
    ("agent", "agents", "agent"),
    ("kind", "kinds", "kind"),
    ("model", "models", "model"),
)
"""(title, the document's list, its name field) of the sums after the requests."""
KIND_WORDS = {
    "turn": "turns",
    "compaction": "compactions",
}
"""How the kinds table names a kind (a side request by its own kind: `thread_title`, `prewarm`)."""


@dataclass(frozen=True)
class Column:
    title: str
    value: Callable[[dict[str, Any], bool], str]
    """The cell of a row (`short`: the short number form)."""
    left: bool = False


def _tokens(name: str) -> Callable[[dict[str, Any], bool], str]:
    return lambda row, short: short_tokens(row[name]) if short else f"{row[name]:,}"


def _usd(row: dict[str, Any], _short: bool = False) -> str:
    """A request's cost (`no usage` as `ctxscope cost` says where its response reported none), or a sum's."""
    if "requests" in row:
        return group_usd(row)
    return short_usd(row["usd"], reported=bool(row["input_tokens"] or row["output_tokens"]))


def group_usd(row: dict[str, Any]) -> str:
    """A sum's cost: `$0.0000` only where something was priced, else why there is none."""
    if row["unpriced_requests"] and row["unpriced_requests"] + row["unreported_requests"] == row["requests"]:
        return "unpriced"
    if row["unreported_requests"] == row["requests"]:
        return "no usage"
    return short_usd(row["usd"])


def _cells(row: dict[str, Any], columns: list[Column], short: bool) -> list[str]:
    return [c.value(row, short) for c in columns]


def _widths(rows: list[dict[str, Any]], columns: list[Column], short: bool) -> list[int]:
    return [max(len(c.title), *(len(c.value(r, short)) for r in rows)) for c in columns]


def _join(cells: list[str], widths: list[int], columns: list[Column]) -> str:
    return " ".join(
        f"{cell:<{w}}" if column.left else f"{cell:>{w}}"
        for cell, w, column in zip(cells, widths, columns, strict=True)
    )


def _table(
    rows: list[dict[str, Any]],
    names: list[Column],
    width: int,
    *,
    current: Callable[[dict[str, Any]], bool] = lambda _: False,
    action: Callable[[dict[str, Any]], ShowTurn | None] = lambda _: None,
) -> list[Line]:
    """`rows` under a heading line: the name columns, the token columns and the cost, each row one
    line where the pane is wide enough (full numbers, else short ones), else two rows: the names and
    the cost, then the tokens under them. `current` rows are marked `>`."""
    tokens = [Column(title, _tokens(name)) for title, name in TOKEN_FIELDS]
    columns = [*names, *tokens, Column("usd", _usd)]
    for short in (False, True):
        widths = _widths(rows, columns, short)
        if 2 + sum(widths) + len(widths) - 1 <= width:
            out = [Line.plain("  " + _join([c.title for c in columns], widths, columns), "dim")]
            for row in rows:
                mark = ">" if current(row) else " "
                text = _join(_cells(row, columns, short), widths, columns)
                out.append(Line((Run(mark + " ", "mark"), Run(text, "title" if current(row) else "")), action(row)))
            return out
    # two rows a request: who and what it cost, then its tokens under it
    head = [*names, Column("usd", _usd)]
    widths = _widths(rows, head, True)
    out = [Line.plain("  " + _join([c.title for c in head], widths, head), "dim")]
    for row in rows:
        mark = ">" if current(row) else " "
        pairs = [f"{title} {short_tokens(row[name])}" for title, name in TOKEN_FIELDS]
        runs = (
            Run(mark + " ", "mark"),
            Run(_join(_cells(row, head, True), widths, head), "title" if current(row) else ""),
            Run("".join("\n    " + packed for packed in _pack(pairs, width - 4)), "dim"),
        )
        out.append(Line(runs, action(row)))
    return out


def _pack(pairs: list[str], width: int) -> list[str]:
    """`in 5.5k`, `cached 3.0k`, … on as few rows of `width` columns as they fit, a pair never broken."""
    rows: list[str] = []
    for pair in pairs:
        if rows and len(rows[-1]) + 2 + len(pair) <= width:
            rows[-1] += "  " + pair
        else:
            rows.append(pair)
    return rows


def _total_lines(doc: dict[str, Any], width: int) -> list[Line]:
    total = doc["total"]
    money = group_usd(total)
    if money.startswith("$"):
        money = usd_text(total["usd"], api_equivalent=total["api_equivalent"])
    label = "  (a ChatGPT login is billed by plan)" if total["api_equivalent"] else ""
    lines = [
        *indented(f"Cost  {money}{label}", width + 2, "title", first=""),
        *indented(
            f"{count(total['requests'], 'request')}, {total['input_tokens']:,} in "
            f"({total['cached_tokens']:,} cached, {total['cache_write_tokens']:,} cache writes), "
            f"{total['output_tokens']:,} out ({total['reasoning_tokens']:,} reasoning, part of out)",
            width,
        ),
    ]
    if total["unpriced_requests"]:
        models = ", ".join(f"{m} ×{n}" for m, n in doc["unpriced"].items())
        unpriced = f"unpriced: {count(total['unpriced_requests'], 'request')} not in the total: {models}"
        lines += indented(unpriced, width, "warn")
    if total["unreported_requests"]:
        lines += indented(f"{count(total['unreported_requests'], 'request')} reported no usage", width, "dim")
    sources = "".join(f"; {m}: {p['source']}" for m, p in doc["prices"].items() if p["source"])
    dataset = doc["dataset"] or "no dataset (pip install 'ctxscope[cost]')"
    lines += indented(f"prices: {dataset}{sources}", width, "dim")
    return lines


def indented(text: str, width: int, style: str = "", *, first: str = "  ") -> list[Line]:
    """`text` wrapped to the pane, two columns in (a sentence is read whole, never cut); `first`:
    the first line's indent."""
    rows = wrapped(text, width - 2, style) if text else []
    return [Line.plain((first if n == 0 else "  ") + line.text, style) for n, line in enumerate(rows)]


def _turn_detail(row: dict[str, Any], doc: dict[str, Any], width: int) -> list[Line]:
    """The highlighted request's breakdown, the uncached input worked out as the price applies it;
    the price's source on lines of its own, wrapped to the pane."""
    uncached = row["input_tokens"] - row["cached_tokens"] - row["cache_write_tokens"]
    where = [row["thread"]]
    if row["agent"] != "main" or len(doc["agents"]) > 1:
        where.append(f"agent {row['agent']}")
    if row["kind"] != "turn":
        where.append(row["kind"])
    where.append(str(row["model"]))
    reported = bool(row["input_tokens"] or row["output_tokens"])
    money = usd_text(row["usd"], api_equivalent=row["api_equivalent"]) if reported else "no usage reported"
    price = doc["prices"].get(row["model"] or "(no model)")
    source = f"price: {price['source']}" if price and price["source"] else ""
    if row["usd"] is None and reported:
        source = f"no price for {row['model']}"
    label = 16
    return [
        *indented(f"Turn {row['turn']}  {', '.join(where)}", width + 2, "title", first=""),
        Line.plain(f"  {'input':<{label}}{row['input_tokens']:>10,}"),
        Line.plain(f"  {'  cached':<{label}}{row['cached_tokens']:>10,}", "dim"),
        Line.plain(f"  {'  cache writes':<{label}}{row['cache_write_tokens']:>10,}", "dim"),
        Line.plain(f"  {'  uncached':<{label}}{uncached:>10,}", "dim"),
        Line.plain(f"  {'output':<{label}}{row['output_tokens']:>10,}"),
        Line.plain(f"  {'  reasoning':<{label}}{row['reasoning_tokens']:>10,}", "dim"),
        Line.plain(f"  {'cost':<{label}}{money:>10}"),
        *indented(source, width, "dim"),
    ]


REQUESTS = Column("requests", lambda r, _s: str(r["requests"]))


def _group_name(field: str) -> Callable[[dict[str, Any], bool], str]:
    """A sum's name (a kind in words: `compactions`, `thread_title`)."""

    def name(row: dict[str, Any], _short: bool) -> str:
        value = str(row[field])
        return KIND_WORDS.get(value, value) if field == "kind" else value

    return name


def cost_lines(doc: dict[str, Any], number: int, *, width: int = 80) -> list[Line]:
    """The cost view at turn `number`: the recording's total, the turn's breakdown, every request
    (Enter goes to it) and the sums; `doc` is `ctxscope cost --format json`'s document."""
    agents = len(doc["agents"]) > 1
    room = max(20, width - 1)
    lines = _total_lines(doc, room)
    mine = [t for t in doc["turns"] if t["turn"] == number]
    if mine:
        lines += [Line.plain(""), *_turn_detail(mine[0], doc, room)]
    names = [Column("turn", lambda r, _s: str(r["turn"])), Column("thread", lambda r, _s: r["thread"], left=True)]
    if agents:
        names.append(Column("agent", lambda r, _s: r["agent"], left=True))
    if any(t["kind"] != "turn" for t in doc["turns"]):
        names.append(Column("kind", lambda r, _s: "" if r["kind"] == "turn" else r["kind"], left=True))
    lines += [Line.plain(""), *indented("Requests  (Enter: go to the turn)", room + 2, "title", first="")]
    lines += _table(
        doc["turns"],
        names,
        room,
        current=lambda r: bool(r["turn"] == number),
        action=lambda r: ShowTurn(int(r["turn"])),
    )
    for title, key, field in GROUPS:
        if key == "agents" and not agents:
            continue
        groups = doc[key]
        heading = "Apart: compactions and side requests" if key == "kinds" else f"Per {title}"
        lines += [Line.plain(""), Line.plain(heading, "title")]
        if key == "kinds" and all(g["kind"] == "turn" for g in groups):
            lines += indented("none: every request is a turn of the conversation", room, "dim")
            continue
        lines += _table(groups, [Column(title, _group_name(field), left=True), REQUESTS], room)
    return lines


__all__ = ["TOKEN_FIELDS", "cost_lines", "group_usd"]

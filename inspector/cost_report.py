"""What each model request of one or more recordings cost, summed per turn, thread, agent, model and
day: the document `ctxscope cost` prints (`cost_cli`) and the TUI's cost view reads, without typer.

Every figure is the turn document's `cost` (`ctxscope.inspector.reports.build.cost_doc`), the one value
`diff`, `info`, the TUI and the HTML report show; this module only sums and renders them. Compactions
and side requests (session titles, prewarms) are counted in the totals and shown apart as well.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxscope.inspector.analysis.analyse import Analysis
    from ctxscope.inspector.analysis.cost import CostTotal, PriceTable, RequestCost

__all__ = ["By", "CostRow", "Format", "cost_document", "cost_rows", "file_cost_rows", "render_csv", "render_text"]


class By(StrEnum):
    turn = "turn"
    thread = "thread"
    agent = "agent"
    model = "model"
    day = "day"


class Format(StrEnum):
    text = "text"
    json = "json"
    csv = "csv"


@dataclass(frozen=True)
class CostRow:
    """One model request of a recording, with the keys it is summed under."""

    recording: str
    turn: int
    thread: str
    agent: str
    model: str | None
    day: str
    kind: str
    """`turn`, `compaction`, or the side request's kind (`thread_title`, `prewarm`)."""
    cost: RequestCost


def file_cost_rows(path: Path, table: PriceTable) -> list[CostRow]:
    """The cost rows of one recording file."""
    from ctxscope.inspector.analysis import analyse_recording

    return cost_rows(analyse_recording(path, shared_inputs=True), str(path), table)


def cost_rows(
    analysis: Analysis, recording: str, table: PriceTable, agents: dict[int, str] | None = None
) -> list[CostRow]:
    """One row per model request of an analysed recording (`recording`: the name its rows carry;
    `agents`: `agent_of_turns` where the caller has it already); the TUI's cost view sums these
    very rows, so it says what `ctxscope cost` says."""
    from ctxscope.inspector.analysis.agents import agent_of_turns
    from ctxscope.inspector.analysis.cost import turn_cost
    from ctxscope.proxy.responses.vocabulary import COMPACTION_REQUEST_KINDS

    agents = agent_of_turns(analysis) if agents is None else agents
    rows = []
    for result in analysis.turns:
        turn = result.turn
        kind = turn.side or ("compaction" if turn.request_kind in COMPACTION_REQUEST_KINDS else "turn")
        day = datetime.fromtimestamp(turn.exchange.started_at, tz=UTC).date().isoformat()
        rows.append(
            CostRow(
                recording=recording,
                turn=turn.number,
                thread=turn.thread,
                agent=agents.get(turn.number, "main"),
                model=turn.model,
                day=day,
                kind=kind,
                cost=turn_cost(result, table),
            )
        )
    return rows


def _sum(rows: list[CostRow], key: Callable[[CostRow], str]) -> dict[str, CostTotal]:
    from ctxscope.inspector.analysis.cost import CostTotal

    out: dict[str, CostTotal] = {}
    for row in rows:
        out.setdefault(key(row), CostTotal()).add(row.cost)
    return out


def _usd(value: float | None) -> float | None:
    return None if value is None else round(value, 10)


def cost_document(rows: list[CostRow], table: PriceTable) -> dict[str, Any]:
    """The `--format json` document: total, each turn, and the sums per thread, agent, model, day and
    kind, with the prices used (a model without one is listed under `unpriced`)."""
    from ctxscope.inspector.analysis.cost import CostTotal

    total = CostTotal()
    for row in rows:
        total.add(row.cost)
    several = len({r.recording for r in rows}) > 1

    def named(groups: dict[str, CostTotal], field: str) -> list[dict[str, Any]]:
        return [{field: name, **sums.as_dict()} for name, sums in groups.items()]

    prices: dict[str, Any] = {}
    unpriced: dict[str, int] = {}
    for row in rows:
        name = row.model or "(no model)"
        if row.cost.price is not None:
            prices[name] = row.cost.price.as_dict()
        elif row.cost.reported:
            unpriced[name] = unpriced.get(name, 0) + 1

    def prefix(row: CostRow) -> str:
        """Threads and agents are per recording: several recordings' `T1`s are not one."""
        return f"{row.recording}:" if several else ""

    return {
        "total": total.as_dict(),
        "label": "API-equivalent" if total.api_equivalent else "API",
        "turns": [
            {
                **({"recording": r.recording} if several else {}),
                "turn": r.turn,
                "thread": r.thread,
                "agent": r.agent,
                "model": r.model,
                "kind": r.kind,
                "usd": _usd(r.cost.usd),
                "input_tokens": r.cost.input_tokens,
                "cached_tokens": r.cost.cached_tokens,
                "cache_write_tokens": r.cost.cache_write_tokens,
                "output_tokens": r.cost.output_tokens,
                "reasoning_tokens": r.cost.reasoning_tokens,
                "api_equivalent": r.cost.api_equivalent,
            }
            for r in rows
        ],
        "threads": named(_sum(rows, lambda r: prefix(r) + r.thread), "thread"),
        "agents": named(_sum(rows, lambda r: prefix(r) + r.agent), "agent"),
        "models": named(_sum(rows, lambda r: r.model or "(no model)"), "model"),
        "days": named(_sum(rows, lambda r: r.day), "day"),
        "kinds": named(_sum(rows, lambda r: r.kind), "kind"),
        "recordings": named(_sum(rows, lambda r: r.recording), "recording"),
        "prices": prices,
        "unpriced": unpriced,
        "dataset": table.dataset,
        "dataset_date": table.dataset_date,
    }


def _money(value: float | None) -> str:
    return "unpriced" if value is None else f"${value:,.4f}"


def render_text(doc: dict[str, Any], by: By) -> list[str]:
    total = doc["total"]
    label = " (API-equivalent: a ChatGPT login is billed by plan)" if total["api_equivalent"] else ""
    lines = [
        f"total   {_money(total['usd'])}{label}  {total['requests']} requests, "
        f"{total['input_tokens']:,} in ({total['cached_tokens']:,} cached, "
        f"{total['cache_write_tokens']:,} cache writes), {total['output_tokens']:,} out "
        f"({total['reasoning_tokens']:,} reasoning)"
    ]
    if total["unpriced_requests"]:
        models = ", ".join(f"{m} ×{n}" for m, n in doc["unpriced"].items())
        lines.append(f"unpriced {total['unpriced_requests']} requests not in the total: {models}")
    apart = [k for k in doc["kinds"] if k["kind"] != "turn"]
    if apart:
        lines.append("apart   " + ", ".join(f"{k['kind']} {k['requests']} × {_money(k['usd'])}" for k in apart))
    lines.append("")
    if by is By.turn:
        lines.append(
            f"{'turn':>5}  {'thread':<14} {'agent':<10} {'model':<18} {'in':>9} {'cached':>9} {'out':>7}  {'usd':>10}"
        )
        for t in doc["turns"]:
            side = "" if t["kind"] == "turn" else f"  ({t['kind']})"
            usd = _money(t["usd"]) if t["input_tokens"] or t["output_tokens"] else "no usage"
            lines.append(
                f"{t['turn']:>5}  {t['thread']:<14} {t['agent']:<10} {str(t['model']):<18} "
                f"{t['input_tokens']:>9,} {t['cached_tokens']:>9,} {t['output_tokens']:>7,}  {usd:>10}{side}"
            )
    else:
        field = by.value
        groups = doc[{"day": "days", "agent": "agents", "model": "models", "thread": "threads"}[field]]
        lines.append(f"{field:<24} {'requests':>8} {'in':>10} {'cached':>10} {'out':>8}  {'usd':>10}")
        for g in groups:
            lines.append(
                f"{g[field]:<24} {g['requests']:>8} {g['input_tokens']:>10,} {g['cached_tokens']:>10,} "
                f"{g['output_tokens']:>8,}  {_money(g['usd']):>10}"
            )
    lines.append("")
    dataset = doc["dataset"] or "no dataset (pip install ctxscope[cost])"
    if doc.get("dataset_date"):
        dataset += f" (its newest OpenAI price change: {doc['dataset_date']})"
    lines.append(
        f"prices  {dataset}"
        + "".join(f"; {m}: {p['source']}" for m, p in doc["prices"].items() if p["source"])
    )
    return lines


def render_csv(doc: dict[str, Any]) -> str:
    out = io.StringIO()
    fields = list(doc["turns"][0]) if doc["turns"] else ["turn"]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(doc["turns"])
    return out.getvalue()

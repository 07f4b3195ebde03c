"""`ctxscope info`: what a recording holds, with the analysis's account of its conversations.

The exchange counts, sizes, models and errors come from the recording (`ctxscope.proxy.store.summary`); the
thread and turn counts are the analysis's, the same that `diff`, `show` and the inspector tell:
conversation threads, their turns, and side requests (titles, prewarms, model lists) counted apart.

This module never imports typer: `ctxscope info FILE` runs through `run_fast` without it (typer and
click are a fifth of `info` on a small recording); `info_command` holds the typer command.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ctxscope.inspector.analysis.cost import CostTotal, model_request_cost
from ctxscope.inspector.analysis.grouping import Grouper, Grouping
from ctxscope.proxy.responses.vocabulary import side_label
from ctxscope.proxy.store import read_recording
from ctxscope.proxy.store.summary import RecordingSummary, summarise

__all__ = ["cost_total", "cost_words", "info", "info_document", "run_fast"]


def _human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def cost_total(grouping: Grouping) -> CostTotal:
    """Every model request of the recording at the default prices (the sum `ctxscope cost` prints)."""
    total = CostTotal()
    for turn in grouping.turns:
        total.add(model_request_cost(turn))
    return total


def cost_words(total: CostTotal) -> str:
    """`$0.0123 API-equivalent (2 unpriced requests)`: the `cost` line of `info`."""
    if total.requests == total.unreported:
        return "no usage reported"
    if total.requests == total.unpriced + total.unreported:
        return "unpriced (no price for its models; `ctxscope cost --prices FILE` takes a table)"
    words = f"${total.usd:,.4f}"
    if total.api_equivalent:
        words += " API-equivalent (a ChatGPT login is billed by plan)"
    if total.unpriced:
        words += f" ({total.unpriced} unpriced request{'s' if total.unpriced != 1 else ''} not counted)"
    return words


def _agent_lines(grouper: Grouper) -> list[str]:
    """The agent tree with each agent's requests and cost, when the recording has spawned agents (only
    then are its turns analysed one by one, from the exchanges already read)."""
    from ctxscope.inspector.analysis.agents import has_spawned_agents

    if not has_spawned_agents(grouper.exchanges):
        return []
    from ctxscope.inspector.analysis.analyse import analyse_exchanges
    from ctxscope.inspector.reports.agents import agent_docs, agent_link, agent_money

    analysis = analyse_exchanges(grouper.exchanges, source=grouper.source, header=grouper.header)
    lines: list[str] = []
    for agent in agent_docs(analysis):
        head = "agents      " if not lines else "            "
        link = f"  ({agent_link(agent)})" if agent.parent else ""
        indent = "  " * (agent.path.count("/") - 1) + "└ " if agent.parent else ""
        lines.append(
            f"{head}{indent}{agent.name}  {', '.join(agent.threads)}  {agent.requests} requests  "
            f"{agent_money(agent)}{link}"
        )
    return lines


def info_document(summary: RecordingSummary, grouping: Grouping) -> dict[str, Any]:
    """`info --json`: the summary's fields, with the analysis's threads, turns and side requests."""
    doc = summary.as_dict()
    doc["cost"] = cost_total(grouping).as_dict()
    conversation_turns = sum(len(t.turns) for t in grouping.conversations)
    counts = {"threads": len(grouping.conversations), "turns": conversation_turns}
    ordered: dict[str, Any] = {}
    for key, value in doc.items():
        ordered[key] = value
        if key == "by_endpoint":
            ordered.update(counts, side_requests=dict(grouping.side_requests))
    return ordered


def info(file: Path, as_json: bool = False) -> None:
    """Summarise a recording: exchanges, threads and turns, models, sizes, errors."""
    recording = read_recording(file)
    summary = summarise(recording)
    # The analysis's own thread assignment, without the per-turn work `info` does not show.
    grouper = Grouper(source=str(file), header=recording.header)
    for exchange in recording.exchanges:
        grouper.add(exchange)
    grouping = grouper.grouping()
    doc = info_document(summary, grouping)
    if as_json:
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return
    endpoints = ", ".join(f"{k} {v}" for k, v in sorted(summary.by_endpoint.items())) or "none"
    models = ", ".join(f"{k} ×{v}" for k, v in sorted(summary.models.items())) or "none"
    ratio = (
        f" ({summary.file_bytes / summary.request_bytes:.2f}× the raw request bodies)"
        if summary.request_bytes
        else ""
    )
    hosts = ", ".join(f"{h} {n}" for h, n in sorted(summary.hosts.items(), key=lambda kv: (-kv[1], kv[0])))
    summarised = f"; {summary.summarised} summarised without bodies" if summary.summarised else ""
    sides = ", ".join(f"{side_label(k)} {n}" for k, n in sorted(grouping.side_requests.items()))
    lines = [
        f"recording   {summary.path}",
        f"format      {summary.version} written by {summary.tool}",
        f"exchanges   {summary.exchanges:,} ({endpoints}{summarised})",
        f"hosts       {hosts or 'none'}",
        f"threads     {doc['threads']} ({doc['turns']} turns)"
        + (f"; side requests: {sides}" if sides else ""),
        f"models      {models}",
        f"tokens      {summary.input_tokens:,} in, {summary.output_tokens:,} out",
        f"cost        {cost_words(cost_total(grouping))}",
        f"span        {summary.duration_s:.1f} s",
        f"size        {_human_bytes(summary.file_bytes)} on disk, "
        f"{_human_bytes(summary.request_bytes)} of request "
        f"bodies{ratio}, {summary.blobs} stored parts",
        f"errors      {len(summary.errors)}"
        + (f" (and {summary.summarised_errors} in summarised traffic)" if summary.summarised_errors else ""),
    ]
    lines += _agent_lines(grouper)
    lines += [f"  {e}" for e in summary.errors[:20]]
    if len(summary.errors) > 20:
        lines.append(f"  … and {len(summary.errors) - 20} more")
    lines += [f"warning     {w}" for w in summary.warnings]
    sys.stdout.write("\n".join(lines) + "\n")


def run_fast(args: list[str]) -> bool:
    """Run `ctxscope info ARGS` without the typer app if every argument is one it takes (one FILE, and
    `--json`): True; else nothing happens (False) and typer runs the command (`--help`, a mistake,
    another option: typer's words). Parsing with typer imports its adapters (about 0.1 s) and building
    the app 0.04 s more, a third of `info` on a small recording (`benchmarks/bench_startup.py`)."""
    files: list[str] = []
    as_json = False
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            files += rest
        elif arg == "--json":
            as_json = True
        elif arg.startswith("-"):
            return False
        else:
            files.append(arg)
    if len(files) != 1:
        return False
    info(Path(files[0]), as_json)
    return True

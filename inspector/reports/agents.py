"""The agent tree as report documents: each agent with its threads, its requests and what they cost.

One function (`agent_docs`) for every view that shows the tree: `diff --format json`, `show`, `info`,
the HTML report. The tree itself is the analysis's (`ctxscope.inspector.analysis.agents`); a cost is the
sum of its requests' turn-document figures (`ctxscope.inspector.analysis.cost.turn_cost`).
"""

from __future__ import annotations

from ctxscope.inspector.analysis.agents import agent_tree
from ctxscope.inspector.analysis.analyse import Analysis
from ctxscope.inspector.analysis.cost import CostTotal, PriceTable, turn_cost, usd_text
from ctxscope.inspector.reports.models import AgentDoc

__all__ = ["agent_docs", "agent_link", "agent_money"]


def agent_docs(analysis: Analysis, prices: PriceTable | None = None) -> list[AgentDoc]:
    """The agents, root first, at `prices`; empty when the recording spawned no agent."""
    agents = agent_tree(analysis)
    if len(agents) < 2:
        return []
    docs = []
    for agent in agents:
        total = CostTotal()
        for number in agent.turns:
            total.add(turn_cost(analysis.turn(number), prices))
        priced = total.requests - total.unpriced - total.unreported
        docs.append(
            AgentDoc(
                name=agent.name,
                path=agent.path,
                agent_id=agent.thread_id,
                parent=agent.parent,
                threads=agent.threads,
                turns=agent.turns,
                spawned_in=agent.spawned_in,
                result_in=agent.result_in,
                returned_in=agent.returned_in,
                requests=total.requests,
                usd=round(total.usd, 10) if priced else None,
                unpriced_requests=total.unpriced,
                api_equivalent=total.api_equivalent,
            )
        )
    return docs


def agent_money(doc: AgentDoc) -> str:
    """An agent's cost as every view writes it (`$0.0123`, `unpriced`)."""
    return usd_text(doc.usd, api_equivalent=doc.api_equivalent)


def agent_link(doc: AgentDoc) -> str:
    """How the agent hangs in the tree, in words: `spawned by main in turn 1, result in turn 2, returned
    in turn 4`; empty for the root."""
    if doc.parent is None:
        return ""
    words = [f"spawned by {doc.parent}" + (f" in turn {doc.spawned_in}" if doc.spawned_in is not None else "")]
    if doc.result_in is not None:
        words.append(f"result in turn {doc.result_in}")
    if doc.returned_in is not None:
        words.append(f"returned in turn {doc.returned_in}")
    return ", ".join(words)

"""The agents view (`a`): the tree of agents of the recording, parent → child by the spawn call,
each with its threads, requests and cost, and under it the turns it made (Enter on an agent or a
turn moves the timeline there).

The tree is the analysis's (`analysis.agents.agent_tree`); the sums are `ctxscope cost`'s document
(its `agents` and `turns`), so the view says what `ctxscope cost --by agent` and `info` say.
"""

from __future__ import annotations

from typing import Any

from ctxscope.inspector.analysis.agents import Agent
from ctxscope.inspector.tui.viewmodel.actions import ShowTurn
from ctxscope.inspector.tui.viewmodel.cost import group_usd
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, count, short_usd, wrapped

USD_WIDTH = 9
"""The cost at a line's right: a space and `short_usd`'s at most 8 columns."""


def _children(tree: list[Agent]) -> dict[str | None, list[Agent]]:
    out: dict[str | None, list[Agent]] = {}
    for agent in tree:
        out.setdefault(agent.parent, []).append(agent)
    return out


def _reported(row: dict[str, Any]) -> bool:
    return bool(row["input_tokens"] or row["output_tokens"])


def _right(left: str, usd: str, width: int) -> str:
    """`left` and the cost at the line's right edge (`left` shortened with an ellipsis first)."""
    room = max(8, width - USD_WIDTH)
    left = left if len(left) <= room else left[: room - 1] + "…"
    return f"{left:<{room}}{usd:>{USD_WIDTH}}"


def agents_lines(
    tree: list[Agent], doc: dict[str, Any], number: int, words: dict[int, str], *, width: int = 80
) -> list[Line]:
    """The tree at turn `number` (marked `>`): each agent's line (threads, requests, cost, where it
    was spawned and where its result came back), then its turns with the answer in short
    (`words`: turn → the timeline's words for it). `doc`: `ctxscope cost`'s document."""
    sums = {a["agent"]: a for a in doc["agents"]}
    costs = {t["turn"]: t for t in doc["turns"]}
    spawned = {a.spawned_in: a.name for a in tree if a.spawned_in is not None}
    returned = {a.result_in: a.name for a in tree if a.result_in is not None}
    children = _children(tree)
    digits = len(str(max((n for a in tree for n in a.turns), default=1)))
    room = max(24, width - 2)
    names = {a.name for a in tree}
    roots = [a for a in tree if a.parent is None or a.parent not in names]
    spawned_count = len(tree) - len(roots)
    lines = [
        Line.plain(f"Agents  {count(len(tree), 'agent')}, {count(spawned_count, 'spawned agent')}", "title"),
        *wrapped("Enter on an agent goes to its first turn, on a turn to that turn.", room, "dim"),
    ]
    if not spawned_count:
        text = "no agent was spawned in this recording: every request is the session's own"
        lines += [Line.plain("  " + line.text, "dim") for line in wrapped(text, room - 2)]

    def agent_entry(agent: Agent, depth: int) -> None:
        indent = "  " * max(0, depth - 1) + ("└ " if depth else "")
        total = sums.get(agent.name)
        usd = group_usd(total) if total else "-"
        requests = count(total["requests"] if total else len(agent.turns), "request")
        head = _right(f"{indent}{agent.name}  {', '.join(agent.threads)}  {requests}", usd, room)
        here = number in agent.turns
        runs = [Run(">" if here else " ", "mark"), Run(" "), Run(head, "title")]
        if agent.parent is not None:
            link = f"spawned by {agent.parent}"
            link += f" in turn {agent.spawned_in}" if agent.spawned_in is not None else ""
            link += f", result back in turn {agent.result_in}" if agent.result_in is not None else ""
            under = "\n  " + "  " * depth
            rows = wrapped(link, max(10, room - 2 - 2 * depth))
            runs.append(Run("".join(under + row.text for row in rows), "dim"))
        lines.append(Line(tuple(runs), ShowTurn(agent.turns[0]) if agent.turns else None))
        if spawned_count:
            pad = "  " * (depth + 1)
            for n in agent.turns:
                cost = costs.get(n)
                usd = "-" if cost is None else short_usd(cost["usd"], reported=_reported(cost))
                links = [f"spawns {spawned[n]}"] if n in spawned else []
                links += [f"{returned[n]}'s result back"] if n in returned else []
                what = " ".join([*(f"({link})" for link in links), words.get(n, "")])
                text = _right(f"{pad}turn {n:<{digits}} {what}", usd, room)
                style = "title" if n == number else ""
                lines.append(Line((Run(">" if n == number else " ", "mark"), Run(" "), Run(text, style)), ShowTurn(n)))
        for child in children.get(agent.name, []):
            agent_entry(child, depth + 1)

    for root in roots:
        agent_entry(root, 0)
    return lines


__all__ = ["agents_lines"]

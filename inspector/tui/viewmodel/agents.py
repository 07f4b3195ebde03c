"""The agents view (`a`): the tree of agents of the recording, parent → child by the spawn call,
each with its threads, requests and cost, and under it the turns it made (Enter on an agent or a
turn moves the timeline there).

The agents are the report's documents of the analysis's tree (`reports.agents.agent_docs`, as
`show`, `info` and the HTML report have them, in the same words: `agent_link`); each turn's cost is
`ctxscope cost`'s (its document's `turns`).
"""

from __future__ import annotations

from typing import Any

from ctxscope.inspector.reports.agents import agent_link, agent_money
from ctxscope.inspector.reports.models import AgentDoc
from ctxscope.inspector.tui.viewmodel.actions import ShowTurn
from ctxscope.inspector.tui.viewmodel.lines import Line, Run, count, short_usd, wrapped

USD_WIDTH = 9
"""The cost at a line's right: a space and `short_usd`'s at most 8 columns."""


def _reported(row: dict[str, Any]) -> bool:
    return bool(row["input_tokens"] or row["output_tokens"])


def _right(left: str, usd: str, width: int) -> str:
    """`left` and the cost at the line's right edge (`left` shortened with an ellipsis first)."""
    room = max(8, width - USD_WIDTH)
    left = left if len(left) <= room else left[: room - 1] + "…"
    return f"{left:<{room}}{usd:>{USD_WIDTH}}"


def _money(doc: AgentDoc) -> str:
    """The agent's cost as every view writes it, in the short form where that does not fit (the
    header says `costs API-equivalent`)."""
    money = agent_money(doc)
    return money if len(money) < USD_WIDTH else short_usd(doc.usd)


def agents_lines(
    agents: list[AgentDoc], turns: list[dict[str, Any]], number: int, words: dict[int, str], *, width: int = 80
) -> list[Line]:
    """The tree at turn `number` (marked `>`): each agent's line (threads, requests, cost, and how
    it hangs in the tree: where it was spawned, where its result and its end came back), then its
    turns with the answer in short (`words`: turn → the timeline's words for it). `agents`:
    `agent_docs` (empty: no agent was spawned); `turns`: `ctxscope cost`'s rows."""
    room = max(24, width - 2)
    lines = [
        Line.plain(
            f"Agents  {count(len(agents) or 1, 'agent')}, {count(max(0, len(agents) - 1), 'spawned agent')}", "title"
        ),
        *wrapped("Enter on an agent goes to its first turn, on a turn to that turn.", room, "dim"),
    ]
    if not agents:
        text = "no agent was spawned in this recording: every request is the session's own"
        return lines + [Line.plain("  " + line.text, "dim") for line in wrapped(text, room - 2)]
    costs = {t["turn"]: t for t in turns}
    notes: dict[int, list[str]] = {}
    for doc in agents:
        said = ((doc.spawned_in, f"spawns {doc.name}"), (doc.result_in, f"{doc.name}'s result"))
        for at, note in (*said, (doc.returned_in, f"{doc.name} returned")):
            if at is not None:
                notes.setdefault(at, []).append(note)
    children: dict[str | None, list[AgentDoc]] = {}
    for doc in agents:
        children.setdefault(doc.parent, []).append(doc)
    names = {doc.name for doc in agents}
    digits = len(str(max((n for doc in agents for n in doc.turns), default=1)))

    def entry(doc: AgentDoc, depth: int) -> None:
        indent = "  " * max(0, depth - 1) + ("└ " if depth else "")
        head = _right(
            f"{indent}{doc.name}  {', '.join(doc.threads)}  {count(doc.requests, 'request')}", _money(doc), room
        )
        runs = [Run(">" if number in doc.turns else " ", "mark"), Run(" "), Run(head, "title")]
        link = agent_link(doc)
        if link:
            under = "\n  " + "  " * depth
            runs.append(Run("".join(under + row.text for row in wrapped(link, max(10, room - 2 - 2 * depth))), "dim"))
        lines.append(Line(tuple(runs), ShowTurn(doc.turns[0]) if doc.turns else None))
        pad = "  " * (depth + 1)
        for n in doc.turns:
            cost = costs.get(n)
            usd = "-" if cost is None else short_usd(cost["usd"], reported=_reported(cost))
            what = " ".join([*(f"({note})" for note in notes.get(n, [])), words.get(n, "")])
            text = _right(f"{pad}turn {n:<{digits}} {what}", usd, room)
            here = n == number
            lines.append(
                Line((Run(">" if here else " ", "mark"), Run(" "), Run(text, "title" if here else "")), ShowTurn(n))
            )
        for child in children.get(doc.name, []):
            entry(child, depth + 1)

    for root in (doc for doc in agents if doc.parent is None or doc.parent not in names):
        entry(root, 0)
    return lines


__all__ = ["agents_lines"]

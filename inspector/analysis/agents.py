"""The tree of agents in a recording: which agent made each model request, and who spawned whom.

Observed with the real Codex 0.171.0 (docs/cost.md): a spawned agent's requests carry a thread id of
their own, the parent's session id, and in `x-codex-turn-metadata` `thread_source: subagent` with
`parent_thread_id`; the parent's `multi_agent_v1.spawn_agent` call is answered with
`{"agent_id": <the child's thread id>, "nickname": …}`. Pure: reads the analysed turns only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis
from ctxscope.inspector.analysis.changes import ChangeKind
from ctxscope.proxy.responses.vocabulary import CodexHeader, MetadataKey

__all__ = ["ROOT", "Agent", "agent_of_turns", "agent_tree"]

ROOT = "main"
"""The agent of requests that name no agent thread (the user's own session)."""


@dataclass
class Agent:
    name: str
    """`main`, or the nickname Codex gave the spawned agent (else its thread id's tail)."""
    thread_id: str | None
    parent: str | None
    """The parent agent's name (None: the root)."""
    threads: list[str] = field(default_factory=list)
    """ctxscope's thread names (T1, T2, …) the agent's requests are in."""
    turns: list[int] = field(default_factory=list)
    spawned_in: int | None = None
    """The parent's turn whose answer made the spawn call."""
    result_in: int | None = None
    """The parent's turn whose input carries the spawn call's result."""


def _meta(result: TurnAnalysis) -> dict[str, Any]:
    headers = {k.lower(): v for k, v in result.turn.exchange.request_headers.items()}
    try:
        meta = json.loads(headers.get(CodexHeader.TURN_METADATA.value, "") or "{}")
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _spawn_calls(items: Any) -> dict[Any, Any]:
    return {
        i.get("call_id"): i
        for i in items
        if isinstance(i, dict) and i.get("type") == "function_call" and i.get("name") == "spawn_agent"
    }


def _spawn_results(items: Any, calls: dict[Any, Any]) -> dict[str, str]:
    """The agent id (child thread id) → nickname of each result among `items` of a call in `calls`."""
    out: dict[str, str] = {}
    for item in items:
        if not (isinstance(item, dict) and item.get("type") == "function_call_output"):
            continue
        if item.get("call_id") not in calls:
            continue
        try:
            value = json.loads(item.get("output") or "")
        except (TypeError, ValueError):
            continue
        if isinstance(value, dict) and isinstance(value.get("agent_id"), str):
            out[value["agent_id"]] = str(value.get("nickname") or value["agent_id"][-8:])
    return out


def _nicknames(analysis: Analysis) -> dict[str, tuple[str, int]]:
    """Agent id → (nickname, the first turn whose input carries its spawn result).

    A turn that appends to its previous turn is read by what it added (with the spawn calls its
    history holds carried along), so a growing session is read once, not once per turn: an item of
    the kept history was read at the turn that first sent it, which comes earlier.
    """
    nicknames: dict[str, tuple[str, int]] = {}
    calls_after: dict[int, dict[Any, Any]] = {}
    for result in analysis.turns:
        change, raw = result.change, result.turn.raw_input
        history = calls_after.get(change.previous) if change.previous is not None else None
        if change.kind == ChangeKind.APPEND and history is not None:
            items = raw[change.kept :]
            added = _spawn_calls(items)
            calls = {**history, **added} if added else history
        else:
            items = raw
            calls = _spawn_calls(items)
        calls_after[result.turn.number] = calls
        if calls:
            for agent_id, nick in _spawn_results(items, calls).items():
                nicknames.setdefault(agent_id, (nick, result.turn.number))
    return nicknames


def agent_tree(analysis: Analysis) -> list[Agent]:
    """The agents, root first, each with its threads and turns, linked to its parent's spawn call."""
    by_thread: dict[str | None, Agent] = {}
    nicknames = _nicknames(analysis)
    for result in analysis.turns:
        meta = _meta(result)
        sub = meta.get("thread_source") == "subagent" and isinstance(meta.get(MetadataKey.THREAD_ID.value), str)
        key = meta[MetadataKey.THREAD_ID.value] if sub else None
        agent = by_thread.get(key)
        if agent is None:
            if key is None:
                agent = Agent(ROOT, None, None)
            else:
                nick, result_turn = nicknames.get(key, (key[-8:], None))
                parent_id = meta.get("parent_thread_id")
                parent = next((a for a in by_thread.values() if a.thread_id == parent_id), None)
                agent = Agent(nick, key, parent.name if parent else ROOT, result_in=result_turn)
                if result_turn is not None:
                    agent.spawned_in = analysis.turn(result_turn).change.previous
            by_thread[key] = agent
        agent.turns.append(result.turn.number)
        if result.turn.thread not in agent.threads:
            agent.threads.append(result.turn.thread)
    return sorted(by_thread.values(), key=lambda a: (a.parent is not None, a.turns[0]))


def agent_of_turns(analysis: Analysis) -> dict[int, str]:
    """Turn number → the name of the agent that made the request."""
    return {n: agent.name for agent in agent_tree(analysis) for n in agent.turns}

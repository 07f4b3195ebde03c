"""The tree of agents in a recording: which agent made each model request, and who spawned whom.

Observed with the real Codex 0.171.0 (docs/cost.md): a spawned agent's requests carry a thread id of
their own, the parent's session id, and in `x-codex-turn-metadata` `thread_source: subagent` with
`parent_thread_id`; the parent's `multi_agent_v1.spawn_agent` call is answered with
`{"agent_id": <the child's thread id>, "nickname": …}`; the child's end comes back to the parent in the
output of a `wait_agent` call (`{"status": {<agent id>: {"completed": …}}}`) and in a user message
`<subagent_notification>{"agent_path": <agent id>, "status": …}`. With `multi_agent_v2` on (its
`collaboration` namespace) an agent is a task path instead: the spawn is answered `{"task_name":
"/root/helper"}`, the child's requests send that path as `agent_name`, and its end comes back as an
`agent_message` item from that author whose text is `Message Type: FINAL_ANSWER …`. Pure: reads the
analysed turns only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ctxscope.proxy.model import Exchange
from ctxscope.proxy.responses.vocabulary import MetadataKey, turn_metadata

if TYPE_CHECKING:  # types only: `info` asks `has_spawned_agents` without importing the per-turn analysis
    from ctxscope.inspector.analysis.analyse import Analysis, TurnAnalysis

__all__ = ["ROOT", "Agent", "agent_of_turns", "agent_tree", "turn_agents"]

ROOT = "main"
"""The agent of requests that name no agent thread (the user's own session)."""


@dataclass
class Agent:
    name: str
    """`main`, or the nickname Codex gave the spawned agent (v2: its task name; else its thread id's tail)."""
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
    returned_in: int | None = None
    """The parent's turn whose input first carries the child's end (a `wait_agent` status or a
    `<subagent_notification>` naming its agent id)."""
    path: str = ROOT
    """The names from the root down to this agent: `main/Bohr` (multi_agent_v1 sends `/root` as every
    agent's `agent_name`, so the path is the tree's), or Codex's task path under `main`
    (`/root/helper` is `main/helper`, multi_agent_v2)."""
    spawn_call: str | None = None
    """The `call_id` of the parent's `spawn_agent` call whose result names this agent."""


def _meta(result: TurnAnalysis) -> dict[str, Any]:
    """The turn metadata as the rest of the analysis reads it: the header's, overridden by the
    request's own `client_metadata` copy (which a recording imported from Codex's trace has alone)."""
    exchange = result.turn.exchange
    return turn_metadata(exchange.request_headers, exchange.request_body)


def _subagent_thread(meta: dict[str, Any]) -> str | None:
    """The thread id of the spawned agent that made a request with this metadata (None: the root's)."""
    thread = meta.get(MetadataKey.THREAD_ID.value)
    return thread if meta.get("thread_source") == "subagent" and isinstance(thread, str) else None


def has_spawned_agents(exchanges: Iterable[Exchange]) -> bool:
    """Whether a spawned agent made any of these requests: if none did, `agent_tree` is the root alone
    (every turn's agent is the root's), which `ctxscope info` knows without analysing each turn."""
    return any(
        _subagent_thread(turn_metadata(e.request_headers, e.request_body)) is not None for e in exchanges
    )


ROOT_PATH = "/root"
"""Codex's `agent_name` of the session's own agent; a v2 task path is under it (`/root/helper`)."""
FINAL_ANSWER = "Message Type: FINAL_ANSWER"
"""How a v2 `agent_message` that carries an agent's end begins."""


@dataclass
class _Seen:
    """What a thread's inputs held so far: the spawn and wait calls by call id. A turn's input repeats
    its previous turn's (the kept prefix), so each turn reads only its new items: linear in the items
    of the recording, not in turns × context."""

    spawn_calls: set[str] = field(default_factory=set)
    wait_calls: set[str] = field(default_factory=set)


def _new_items(result: TurnAnalysis, seen: dict[int, _Seen]) -> tuple[list[Any], _Seen]:
    """The items of this turn's input that its previous turn's did not hold, and the calls met so far."""
    change = result.change
    before = seen.get(change.previous) if change.previous is not None else None
    if before is None:
        items, state = list(result.turn.raw_input), _Seen()
    else:
        items = list(result.turn.raw_input[change.kept :])
        state = _Seen(set(before.spawn_calls), set(before.wait_calls))
    for item in items:
        if isinstance(item, dict) and item.get("type") == "function_call" and isinstance(item.get("call_id"), str):
            if item.get("name") == "spawn_agent":
                state.spawn_calls.add(item["call_id"])
            elif item.get("name") == "wait_agent":
                state.wait_calls.add(item["call_id"])
    seen[result.turn.number] = state
    return items, state


def _spawns(items: list[Any], state: _Seen) -> dict[str, tuple[str, str]]:
    """The agent id (v1: the child's thread id) or task path (v2) → (the name, the spawn call's id) of
    each spawn result in the items: v1's nickname, v2's last path segment."""
    out: dict[str, tuple[str, str]] = {}
    for item in items:
        if not (isinstance(item, dict) and item.get("type") == "function_call_output"):
            continue
        if item.get("call_id") not in state.spawn_calls:
            continue
        try:
            value = json.loads(item.get("output") or "")
        except (TypeError, ValueError):
            continue
        if isinstance(value, dict) and isinstance(value.get("agent_id"), str):
            out[value["agent_id"]] = (str(value.get("nickname") or value["agent_id"][-8:]), str(item["call_id"]))
        elif isinstance(value, dict) and isinstance(value.get("task_name"), str):
            out[value["task_name"]] = (value["task_name"].rstrip("/").rsplit("/", 1)[-1], str(item["call_id"]))
    return out


NOTIFICATION = "<subagent_notification>"
"""The user message Codex adds to the parent's input when a spawned agent ends."""


def _ended(items: list[Any], state: _Seen) -> set[str]:
    """The agent ids whose end the items carry (a wait status or a notification)."""
    out: set[str] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "agent_message" and isinstance(item.get("author"), str):
            texts = [p.get("text") for p in item.get("content") or [] if isinstance(p, dict)]
            if any(isinstance(t, str) and t.startswith(FINAL_ANSWER) for t in texts):
                out.add(item["author"])
        elif item.get("type") == "function_call_output" and item.get("call_id") in state.wait_calls:
            value = _json(item.get("output"))
            status = value.get("status") if isinstance(value, dict) else None
            out.update(k for k, v in (status or {}).items() if isinstance(v, dict) and v)
        elif item.get("type") == "message" and item.get("role") == "user":
            for part in item.get("content") or []:
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str) and text.startswith(NOTIFICATION):
                    value = _json(text.removeprefix(NOTIFICATION).split("</subagent_notification>")[0])
                    if isinstance(value, dict) and isinstance(value.get("agent_path"), str):
                        out.add(value["agent_path"])
    return out


def _json(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


def agent_tree(analysis: Analysis) -> list[Agent]:
    """The agents, root first, each with its threads and turns, linked to its parent's spawn call."""
    by_thread: dict[str | None, Agent] = {}
    nicknames: dict[str, tuple[str, int | None, str | None]] = {}
    ended: dict[str, int] = {}
    seen: dict[int, _Seen] = {}
    for result in analysis.turns:
        # setdefault: the first turn whose input carries a result is the one named, and an item in a
        # kept prefix was met in an earlier turn of the thread, so only the new items are read
        items, state = _new_items(result, seen)
        for agent_id, (name, call_id) in _spawns(items, state).items():
            nicknames.setdefault(agent_id, (name, result.turn.number, call_id))
        for agent_id in _ended(items, state):
            ended.setdefault(agent_id, result.turn.number)
    for result in analysis.turns:
        meta = _meta(result)
        key = _subagent_thread(meta)
        agent = by_thread.get(key)
        if agent is None:
            if key is None:
                agent = Agent(ROOT, None, None)
            else:
                task = meta.get("agent_name")
                task = task if isinstance(task, str) and task.startswith(ROOT_PATH + "/") else None
                default = task.rsplit("/", 1)[-1] if task else key[-8:]
                nick, result_turn, call = nicknames.get(key) or nicknames.get(task or "") or (default, None, None)
                parent_id = meta.get("parent_thread_id")
                parent = next((a for a in by_thread.values() if a.thread_id == parent_id), None)
                returned = ended.get(key) or ended.get(task or "")
                agent = Agent(nick, key, parent.name if parent else ROOT, result_in=result_turn, returned_in=returned)
                above = parent.path if parent else ROOT
                agent.path = ROOT + task.removeprefix(ROOT_PATH) if task else f"{above}/{nick}"
                agent.spawn_call = call
                if result_turn is not None:
                    agent.spawned_in = analysis.turn(result_turn).change.previous
            by_thread[key] = agent
        agent.turns.append(result.turn.number)
        if result.turn.thread not in agent.threads:
            agent.threads.append(result.turn.thread)
    return sorted(by_thread.values(), key=lambda a: (a.parent is not None, a.turns[0]))


def agent_of_turns(analysis: Analysis) -> dict[int, str]:
    """Turn number → the name of the agent that made the request."""
    return turn_agents(agent_tree(analysis))


def turn_agents(tree: list[Agent]) -> dict[int, str]:
    """Turn number → its agent's name, from a tree already built (the TUI builds it once)."""
    return {n: agent.name for agent in tree for n in agent.turns}

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


def _meta(result: TurnAnalysis) -> dict[str, Any]:
    headers = {k.lower(): v for k, v in result.turn.exchange.request_headers.items()}
    try:
        meta = json.loads(headers.get(CodexHeader.TURN_METADATA.value, "") or "{}")
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


ROOT_PATH = "/root"
"""Codex's `agent_name` of the session's own agent; a v2 task path is under it (`/root/helper`)."""
FINAL_ANSWER = "Message Type: FINAL_ANSWER"
"""How a v2 `agent_message` that carries an agent's end begins."""


def _calls(items: Any, name: str) -> set[Any]:
    """The call ids of the `name` tool calls among `items`."""
    return {
        i.get("call_id")
        for i in items
        if isinstance(i, dict) and i.get("type") == "function_call" and i.get("name") == name
    }


def _spawns(items: Any, calls: set[Any]) -> dict[str, str]:
    """The agent id (v1: the child's thread id) or task path (v2) → the name of each spawn result
    among `items` (of a call in `calls`): v1's nickname, v2's last path segment."""
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
        elif isinstance(value, dict) and isinstance(value.get("task_name"), str):
            out[value["task_name"]] = value["task_name"].rstrip("/").rsplit("/", 1)[-1]
    return out


NOTIFICATION = "<subagent_notification>"
"""The user message Codex adds to the parent's input when a spawned agent ends."""


def _ended(items: Any, waits: set[Any], *, messages: bool = True) -> set[str]:
    """The agent ids whose end `items` carry: a wait status (the output of a call in `waits`) or,
    with `messages`, a notification or a v2 final answer."""
    out: set[str] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        if messages and item.get("type") == "agent_message" and isinstance(item.get("author"), str):
            texts = [p.get("text") for p in item.get("content") or [] if isinstance(p, dict)]
            if any(isinstance(t, str) and t.startswith(FINAL_ANSWER) for t in texts):
                out.add(item["author"])
        elif item.get("type") == "function_call_output" and item.get("call_id") in waits:
            value = _json(item.get("output"))
            status = value.get("status") if isinstance(value, dict) else None
            out.update(k for k, v in (status or {}).items() if isinstance(v, dict) and v)
        elif messages and item.get("type") == "message" and item.get("role") == "user":
            for part in item.get("content") or []:
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str) and text.startswith(NOTIFICATION):
                    value = _json(text.removeprefix(NOTIFICATION).split("</subagent_notification>")[0])
                    if isinstance(value, dict) and isinstance(value.get("agent_path"), str):
                        out.add(value["agent_path"])
    return out


def _first_turns(analysis: Analysis) -> tuple[dict[str, tuple[str, int]], dict[str, int]]:
    """Agent id → (its name, the first turn whose input carries its spawn result), and agent id →
    the first turn whose input carries its end.

    A turn that appends to its previous turn is read by what it added, the spawn and wait calls of
    its history carried along (a growing session is read once, not once per turn): what the kept
    history carries was found at the turn that first sent it, which comes earlier. Only a call
    added now is looked for among the history's outputs too.
    """
    nicknames: dict[str, tuple[str, int]] = {}
    ended: dict[str, int] = {}
    carried: dict[int, tuple[set[Any], set[Any]]] = {}
    for result in analysis.turns:
        change, raw, number = result.change, result.turn.raw_input, result.turn.number
        history = carried.get(change.previous) if change.previous is not None else None
        if change.kind == ChangeKind.APPEND and history is not None:
            items = raw[change.kept :]
            new_spawns, new_waits = _calls(items, "spawn_agent"), _calls(items, "wait_agent")
            spawns = history[0] | new_spawns if new_spawns else history[0]
            waits = history[1] | new_waits if new_waits else history[1]
            found = _spawns(raw[: change.kept], new_spawns) if new_spawns else {}
            found.update(_spawns(items, spawns) if spawns else {})
            ends = _ended(raw[: change.kept], new_waits, messages=False) if new_waits else set()
            ends |= _ended(items, waits)
        else:
            spawns, waits = _calls(raw, "spawn_agent"), _calls(raw, "wait_agent")
            found, ends = _spawns(raw, spawns) if spawns else {}, _ended(raw, waits)
        carried[number] = (spawns, waits)
        for agent_id, nick in found.items():
            nicknames.setdefault(agent_id, (nick, number))
        for agent_id in ends:
            ended.setdefault(agent_id, number)
    return nicknames, ended


def _json(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


def agent_tree(analysis: Analysis) -> list[Agent]:
    """The agents, root first, each with its threads and turns, linked to its parent's spawn call."""
    by_thread: dict[str | None, Agent] = {}
    nicknames, ended = _first_turns(analysis)
    for result in analysis.turns:
        meta = _meta(result)
        sub = meta.get("thread_source") == "subagent" and isinstance(meta.get(MetadataKey.THREAD_ID.value), str)
        key = meta[MetadataKey.THREAD_ID.value] if sub else None
        agent = by_thread.get(key)
        if agent is None:
            if key is None:
                agent = Agent(ROOT, None, None)
            else:
                task = meta.get("agent_name")
                task = task if isinstance(task, str) and task.startswith(ROOT_PATH + "/") else None
                default = task.rsplit("/", 1)[-1] if task else key[-8:]
                nick, result_turn = nicknames.get(key) or nicknames.get(task or "") or (default, None)
                parent_id = meta.get("parent_thread_id")
                parent = next((a for a in by_thread.values() if a.thread_id == parent_id), None)
                returned = ended.get(key) or ended.get(task or "")
                agent = Agent(nick, key, parent.name if parent else ROOT, result_in=result_turn, returned_in=returned)
                above = parent.path if parent else ROOT
                agent.path = ROOT + task.removeprefix(ROOT_PATH) if task else f"{above}/{nick}"
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

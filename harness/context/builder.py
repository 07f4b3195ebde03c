"""The context items of a request, as Responses wire item dicts.

- `initial_context_items`: the full render — exactly one developer message (optional developer
  instructions, skills catalog, permissions, collaboration mode) then one contextual user message
  (AGENTS.md, environment_context, goal). Used for the first request and the first after a
  compaction. (The base prompt, when it travels in input[0], is added before these by the agent.)
- `context_update_items`: only the sections whose values changed since the previous snapshot,
  appended after the existing history (which is never rewritten), in Codex 0.169's section order
  (AGENTS.md, skills, permissions, collaboration mode, environment, goal); adjacent same-role
  fragments share one message. A cwd change re-sends the whole environment_context; any other
  environment change re-sends the date and timezone plus the changed filesystem.
- Per-event items: model switch, turn aborted, user shell command, plan-mode reminder,
  compaction summary, plain user message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .agents_fragments import render_agents_md, render_agents_md_removed, render_agents_md_replaced
from .developer import render_collaboration_mode, render_model_switch, render_permissions
from .environment import render_environment
from .skill_fragments import render_skills_catalog
from .turn_fragments import (
    COMPACTION_SUMMARY_SPEC,
    GOAL_SPEC,
    PLAN_MODE_REMINDER_SPEC,
    TURN_ABORTED_SPEC,
    USER_SHELL_COMMAND_SPEC,
)
from .world_state import WorldState, environment_values, permissions_values

__all__ = [
    "base_prompt_item",
    "compaction_summary_item",
    "context_items",
    "context_update_items",
    "initial_context_items",
    "message_item",
    "model_switch_items",
    "plan_mode_reminder_item",
    "turn_aborted_item",
    "user_message_item",
    "user_shell_command_item",
]

Item = dict[str, Any]


def message_item(role: str, texts: list[str]) -> Item:
    """A `message` item with one `input_text` part per text (the wire form Codex sends)."""
    return {"type": "message", "role": role, "content": [{"type": "input_text", "text": t} for t in texts]}


def base_prompt_item(instructions: str) -> Item:
    """The base prompt as input[0]: a developer message of plain text (Codex CLI 0.169's placement)."""
    return message_item("developer", [instructions])


def user_message_item(text: str) -> Item:
    """A plain user prompt."""
    return message_item("user", [text])


def _agents_values(state: WorldState) -> dict[str, Any]:
    """Codex's split: the global file (found first, outside the cwd's own chain) and the project
    documents (in the cwd or a directory above it); the heading names the cwd only for the latter."""
    chain = {Path(state.cwd), *Path(state.cwd).parents}
    docs = list(state.agents_docs)
    global_text = docs.pop(0)[1] if docs and Path(docs[0][0]).parent not in chain else None
    project = "\n\n".join(text for _, text in docs) or None
    values: dict[str, Any] = {"path": state.cwd if project else None}
    if global_text:
        values["global"] = global_text
    if project:
        values["project"] = project
    return values


def _skills_values(state: WorldState) -> dict[str, Any]:
    return {"skills": [s.model_dump() for s in state.skills]}


def _merge(parts: list[tuple[str, str]]) -> list[Item]:
    """Adjacent same-role parts share one message, in order."""
    items: list[Item] = []
    for role, text in parts:
        if items and items[-1]["role"] == role:
            items[-1]["content"].append({"type": "input_text", "text": text})
        else:
            items.append(message_item(role, [text]))
    return items


def initial_context_items(
    state: WorldState, developer_instructions: str | None = None, *, collaboration_text: str | None = None
) -> list[Item]:
    """Full render: one developer message, then one contextual user message.

    `collaboration_text` is the active mode's own fragment text (the mode object supplies it)."""
    developer: list[str] = []
    if developer_instructions and developer_instructions.strip():
        developer.append(developer_instructions)
    if state.skills:
        developer.append(render_skills_catalog(_skills_values(state)))
    developer.append(render_permissions(permissions_values(state)))
    if state.collaboration_mode is not None:
        values = {"mode": state.collaboration_mode, "text": collaboration_text}
        developer.append(render_collaboration_mode(values))
    user: list[str] = []
    if state.agents_docs:
        user.append(render_agents_md(_agents_values(state)))
    user.append(render_environment(environment_values(state)))
    if state.goal:
        user.append(GOAL_SPEC.render({"objective": state.goal}))
    return [message_item("developer", developer), message_item("user", user)]


def context_update_items(
    prev: WorldState, cur: WorldState, *, collaboration_text: str | None = None
) -> list[Item]:
    """Items to append so the model learns what changed from `prev` to `cur`; [] if nothing did.

    `collaboration_text` is the fragment text of the mode now active (see `initial_context_items`).
    Model and reasoning effort are not rendered here: a model change goes through
    `model_switch_items`, which also carries the new model's instructions.
    """
    parts: list[tuple[str, str]] = []
    if prev.agents_docs != cur.agents_docs:
        if not cur.agents_docs:
            parts.append(("user", render_agents_md_removed({})))
        elif not prev.agents_docs:
            parts.append(("user", render_agents_md(_agents_values(cur))))
        else:
            parts.append(("user", render_agents_md_replaced(_agents_values(cur))))
    if prev.skills != cur.skills:
        parts.append(("developer", render_skills_catalog(_skills_values(cur))))
    if permissions_values(prev) != permissions_values(cur):
        parts.append(("developer", render_permissions(permissions_values(cur))))
    mode_switch: list[Item] = []
    if prev.collaboration_mode != cur.collaboration_mode:
        # Leaving a mode altogether means going back to default behaviour; say so explicitly so
        # the old mode's instructions do not linger. As Codex does, the switch is a developer
        # message of its own, the last one before the user's message.
        mode = cur.collaboration_mode or "default"
        text = render_collaboration_mode({"mode": mode, "text": collaboration_text})
        mode_switch.append(message_item("developer", [text]))
    environment = environment_update(environment_values(prev), environment_values(cur))
    if environment:
        parts.append(("user", render_environment(environment)))
    if cur.goal and cur.goal != prev.goal:
        parts.append(("user", GOAL_SPEC.render({"objective": cur.goal})))
    return _merge(parts) + mode_switch


def environment_update(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The environment children an update re-sends (Codex 0.169): all of them when the cwd or
    shell changed; otherwise the date and timezone, plus the filesystem when it changed."""
    changed = {key for key, value in new.items() if old.get(key) != value}
    if not changed:
        return {}
    if changed & {"cwd", "shell"}:
        return dict(new)
    keys = ["current_date", "timezone"]
    if changed & {"workspace_roots", "writable_roots"}:
        keys += ["workspace_roots", "writable_roots"]
    return {key: new[key] for key in keys}


def context_items(
    prev: WorldState | None,
    cur: WorldState,
    developer_instructions: str | None = None,
    *,
    collaboration_text: str | None = None,
) -> list[Item]:
    """Full render when there is no baseline (new session, after compaction), else the update."""
    if prev is None:
        return initial_context_items(cur, developer_instructions, collaboration_text=collaboration_text)
    return context_update_items(prev, cur, collaboration_text=collaboration_text)


def model_switch_items(old_model: str, new_model: str, new_instructions: str) -> list[Item]:
    """A developer message telling the model the conversation moved to `new_model`."""
    text = render_model_switch(
        {"previous_model": old_model, "model": new_model, "instructions": new_instructions}
    )
    return [message_item("developer", [text])]


def turn_aborted_item(reason: str) -> Item:
    """User item recording that the previous turn was interrupted, and why."""
    return message_item("user", [TURN_ABORTED_SPEC.render({"reason": reason})])


def user_shell_command_item(command: str, exit_code: int, duration_s: float, output: str) -> Item:
    """User item with a command the user ran themselves and its result."""
    values = {"command": command, "exit_code": exit_code, "duration_s": duration_s, "output": output}
    return message_item("user", [USER_SHELL_COMMAND_SPEC.render(values)])


def plan_mode_reminder_item(event: str, text: str, role: str = "developer") -> Item:
    """A plan-mode message (`event`: entered, reentered, exited, recovery, ...) the inspector can
    place on the timeline."""
    return message_item(role, [PLAN_MODE_REMINDER_SPEC.render({"event": event, "text": text})])


def compaction_summary_item(summary: str) -> Item:
    """The user message that carries a compaction summary in the new history."""
    return message_item("user", [COMPACTION_SUMMARY_SPEC.render({"summary": summary})])

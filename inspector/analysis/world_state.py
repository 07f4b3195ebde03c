"""World state: the typed values a turn's context carries, and what changed between turns.

The state of a turn is the fold of every recognised fragment in its input, in order (Codex appends
only the sections that changed, so a later fragment overrides an earlier one), plus the model and
reasoning effort of the request. Changes are described as sentences a person reads in a timeline:
"cwd /repo → /repo/pkg", "AGENTS.md replaced: /repo → /repo/pkg", "skill demo-skill selected".
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

from inspector.analysis.items import Item

# Fragment value name → state key, for the scalar values environment and permissions carry.
_SCALARS = {
    "cwd": "cwd",
    "shell": "shell",
    "current_date": "date",
    "timezone": "timezone",
    "sandbox_mode": "sandbox",
    "approval_policy": "approval",
    "network_enabled": "network",
    "writable_roots": "writable_roots",
}


def _docs_text(values: dict[str, Any]) -> str:
    docs = values.get("docs")
    if isinstance(docs, list):
        return "\n\n".join(str(d.get("text", "")) for d in docs if isinstance(d, dict))
    return str(values.get("text", ""))


def apply_fragment(state: dict[str, Any], kind: str, values: dict[str, Any]) -> None:
    """Fold one fragment's values into `state` (in place)."""
    if kind in ("environment_context", "permissions"):
        for name, key in _SCALARS.items():
            if name in values:
                state[key] = values[name]
    elif kind == "collaboration_mode":
        state["collaboration_mode"] = values.get("mode")
    elif kind in ("agents_md", "agents_md_replaced", "user_instructions"):
        path = values.get("path") or state.get("cwd") or "?"
        docs = {} if kind == "agents_md_replaced" else dict(state.get("agents_md") or {})
        docs[str(path)] = _docs_text(values)
        state["agents_md"] = docs
    elif kind == "agents_md_removed":
        state["agents_md"] = {}
    elif kind == "skills_catalog":
        state["skills"] = sorted(str(s.get("name")) for s in values.get("skills", []) if isinstance(s, dict))
    elif kind == "selected_skill":
        selected = list(state.get("selected_skills") or [])
        if values.get("name") not in selected:
            selected.append(str(values.get("name")))
        state["selected_skills"] = selected
    elif kind == "goal":
        state["goal"] = values.get("objective") or values.get("text")
    elif kind in ("goal_objective", "goal_status"):
        if values.get("objective"):
            state["goal"] = values["objective"]
        if values.get("status"):
            state["goal_status"] = values["status"]
        elif kind == "goal_objective" and not state.get("goal_status"):
            state["goal_status"] = "active"
    elif kind == "goal_continuation":
        state["goal_continuations"] = int(state.get("goal_continuations") or 0) + 1
    elif kind == "personality":
        state["personality"] = values.get("text")
    elif kind == "model_switch" and values.get("model"):
        state["context_model"] = values.get("model")


def fold_items(state: dict[str, Any], items: Iterable[Item]) -> dict[str, Any]:
    """A new state: `state` with every fragment of `items` applied in order."""
    out = copy.copy(state)
    for item in items:
        for part in item.fragments:
            apply_fragment(out, part.kind, part.values)
        if item.type == "function_call" and isinstance(item.raw, dict):
            _goal_call(out, item.raw)
    return out


def _goal_call(state: dict[str, Any], call: dict[str, Any]) -> None:
    """The model's own goal changes: `update_goal {status}`, `create_goal {objective}`."""
    name = call.get("name")
    if name not in ("update_goal", "create_goal"):
        return
    try:
        args = json.loads(call.get("arguments") or "{}")
    except (TypeError, ValueError):
        return
    if not isinstance(args, dict):
        return
    if name == "update_goal" and isinstance(args.get("status"), str):
        state["goal_status"] = args["status"]
    elif name == "create_goal" and isinstance(args.get("objective"), str):
        state["goal"] = args["objective"]
        state["goal_status"] = "active"


def request_values(state: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """The state completed with the request's own model and reasoning effort."""
    out = dict(state)
    out["model"] = body.get("model")
    reasoning = body.get("reasoning")
    out["reasoning_effort"] = reasoning.get("effort") if isinstance(reasoning, dict) else None
    return out


def _short(value: Any, limit: int = 200) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "enabled" if value else "restricted"
    if isinstance(value, list):
        text = ", ".join(str(v) for v in value) or "none"
    else:
        text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _agents_sentences(before: dict[str, str], after: dict[str, str], replaced: bool) -> list[str]:
    if before == after:
        return []
    if replaced or (before and after and not set(before) & set(after)):
        old = ", ".join(sorted(before)) or "none"
        new = ", ".join(sorted(after)) or "none"
        return [
            f"AGENTS.md replaced: {old} → {new}"
            if old != new
            else f"AGENTS.md replaced: {new} (text changed)"
        ]
    out = [f"AGENTS.md added: {p}" for p in sorted(set(after) - set(before))]
    out += [f"AGENTS.md removed: {p}" for p in sorted(set(before) - set(after))]
    out += [f"AGENTS.md changed: {p}" for p in sorted(set(before) & set(after)) if before[p] != after[p]]
    return out


_NAMES = {
    "cwd": "cwd",
    "shell": "shell",
    "date": "date",
    "timezone": "timezone",
    "sandbox": "sandbox",
    "approval": "approval policy",
    "network": "network",
    "collaboration_mode": "collaboration mode",
    "model": "model",
    "reasoning_effort": "reasoning effort",
    "personality": "personality",
    "context_model": "model switch notice",
}


_GOAL_STATUS_SENTENCES = {
    "paused": "goal paused",
    "complete": "goal completed",
    "blocked": "goal blocked",
    "budget_limited": "goal budget spent",
}


def _goal_sentences(before: dict[str, Any], after: dict[str, Any], added: list[Item]) -> list[str]:
    """The goal's status changes in the order the added items tell them (the person's status
    messages, the model's goal calls), then a new continuation turn (Codex's /goal and the harness's)."""
    out: list[str] = []
    for item in added:
        statuses = [p.values.get("status") for p in item.fragments if p.kind == "goal_status"]
        if not statuses and item.type == "function_call" and isinstance(item.raw, dict):
            probe: dict[str, Any] = {}
            _goal_call(probe, item.raw)
            if item.raw.get("name") == "update_goal":
                statuses = [probe.get("goal_status")]
        for status in statuses:
            if status == "active":
                # A status message that sets the goal is told by "goal set"; alone it resumes one.
                if not any(p.values.get("objective") for p in item.fragments):
                    out.append("goal resumed")
            elif status is not None:
                out.append(_GOAL_STATUS_SENTENCES.get(str(status), f"goal {status}"))
    count = int(after.get("goal_continuations") or 0)
    if count > int(before.get("goal_continuations") or 0):
        out.append(f"goal continuation #{count}")
    return out


def describe_changes(before: dict[str, Any] | None, after: dict[str, Any], added: list[Item]) -> list[str]:
    """Sentences for every value that differs between two states (`before` None: the first turn)."""
    if before is None:  # the initial context is listed as fragments; only say what the user chose
        chosen = [f"skill {name} selected" for name in after.get("selected_skills") or []]
        if after.get("goal"):
            chosen.append(f"goal set: {_short(after.get('goal'), 80)}")
        return chosen + _goal_sentences({}, after, added)
    sentences: list[str] = []
    added_kinds = {p.kind for item in added for p in item.fragments}
    for key in (
        "cwd",
        "shell",
        "date",
        "timezone",
        "sandbox",
        "approval",
        "network",
        "collaboration_mode",
        "model",
        "reasoning_effort",
        "context_model",
    ):
        if key == "context_model" and after.get(key) == after.get("model") != before.get("model"):
            continue  # the model-switch notice only confirms the model change already described
        if before.get(key) != after.get(key):
            sentences.append(f"{_NAMES[key]} {_short(before.get(key))} → {_short(after.get(key))}")
    if before.get("writable_roots") != after.get("writable_roots"):
        sentences.append(
            f"writable roots changed: {_short(before.get('writable_roots'))} → "
            f"{_short(after.get('writable_roots'))}"
        )
    sentences += _agents_sentences(
        before.get("agents_md") or {}, after.get("agents_md") or {}, "agents_md_replaced" in added_kinds
    )
    old_skills, new_skills = set(before.get("skills") or []), set(after.get("skills") or [])
    if old_skills != new_skills:
        delta = [f"+{s}" for s in sorted(new_skills - old_skills)] + [
            f"-{s}" for s in sorted(old_skills - new_skills)
        ]
        sentences.append("skills catalog changed: " + " ".join(delta))
    for name in after.get("selected_skills") or []:
        if name not in (before.get("selected_skills") or []):
            sentences.append(f"skill {name} selected")
    if before.get("goal") != after.get("goal"):
        sentences.append(
            f"goal set: {_short(after.get('goal'), 80)}" if after.get("goal") else "goal cleared"
        )
    sentences += _goal_sentences(before, after, added)
    if before.get("personality") != after.get("personality"):
        sentences.append("personality changed")
    return sentences

"""Goal fragments in Codex's shapes (`codex-observed.md` §5), in ctxscope's own wording.

- `goal_status` (user): `<codex_internal_context source="user_goal">`, two lines: the objective the
  user set (only when a goal is set) and the goal's status. Sent when the person sets, pauses or
  resumes a goal.
- `goal_continuation` (user): `<codex_internal_context source="goal">`, the steering message that
  starts every goal turn. It does not repeat the objective (that is the `goal_objective` item);
  its `Budget:` lines are the only lines that change from turn to turn.
- `goal_objective_item`: the objective as a `function_call_output` named `goal_objective` in the
  `agent` namespace, with no call id and no matching call (Codex's form).

The older forms that carry the objective inside the message (`<objective>` child, `<goal_context>`)
stay the `goal` kind in `turn_fragments.py`.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any

from ._markup import wrap
from ._spec import FragmentSpec, Values, WorldMeaning
from ._state_field import ChangeStyle, StateField

__all__ = [
    "GOAL_CONTINUATION_SPEC",
    "GoalEventKind",
    "goal_event_of",
    "GOAL_OBJECTIVE_NAME",
    "GOAL_STATUS_SPEC",
    "goal_objective_item",
    "goal_objective_of",
]

GOAL_OBJECTIVE_NAME = "goal_objective"
_CLOSE = "</codex_internal_context>"

# World state: the objective is `WorldState.goal`; what happens to the goal (status changes, goal
# turns) is a log only the context carries, told one entry at a time.


class GoalEventKind(StrEnum):
    """What happened to the goal, as the `goal_events` log names it (one entry per event)."""

    SET = "set"
    CONTINUATION = "continuation"
    """A goal turn the harness started; the log entry is `continuation #N`."""
    PAUSED = "paused"
    RESUMED = "resumed"
    CLEARED = "cleared"
    COMPLETED = "completed"
    BLOCKED = "blocked"
    BUDGET_REACHED = "budget reached"


def goal_event_of(entry: str) -> tuple[GoalEventKind | None, int | None]:
    """(kind, continuation number) of a `goal_events` log entry; (None, None) for an unknown one."""
    kind, _, number = entry.partition(" #")
    if kind == GoalEventKind.CONTINUATION and number.isdigit():
        return GoalEventKind.CONTINUATION, int(number)
    return (GoalEventKind(entry), None) if entry in GoalEventKind._value2member_map_ else (None, None)


GOAL_EVENTS_FIELD = Annotated[
    list[str], StateField("goal", ChangeStyle.EVENTS, on_first_turn=True, short="goal log")
]
_STATUS_EVENT = {
    "active": GoalEventKind.RESUMED.value,
    "paused": GoalEventKind.PAUSED.value,
    "complete": GoalEventKind.COMPLETED.value,
    "blocked": GoalEventKind.BLOCKED.value,
    "budget_limited": GoalEventKind.BUDGET_REACHED.value,
}
_CLEARED_STATUSES = frozenset({"cleared", "deleted", "removed"})
"""Status words (or none readable, with no objective) of a message that says the goal is gone."""


def _status_update(values: Values, state: Mapping[str, Any]) -> Values:
    """The objective (when the message sets one) and a status event (a set goal is told by `goal set`)."""
    update: Values = {}
    if values.get("objective"):
        update["goal"] = values["objective"]
    status = values.get("status")
    events = list(state.get("goal_events") or [])
    if _is_cleared(values):
        # `/goal clear`: the goal is gone (the message names no status the log knows).
        return {"goal": None, "goal_events": [*events, GoalEventKind.CLEARED.value]}
    if status and not (status == "active" and values.get("objective")):
        update["goal_events"] = [*events, _STATUS_EVENT.get(status, str(status))]
    return update


def _is_cleared(values: Values) -> bool:
    status = values.get("status")
    if status is None:
        return not values.get("objective")
    return str(status).lower() in _CLEARED_STATUSES


def _continuation_update(values: Values, state: Mapping[str, Any]) -> Values:
    events = list(state.get("goal_events") or [])
    number = sum(goal_event_of(e)[0] is GoalEventKind.CONTINUATION for e in events) + 1
    return {"goal_events": [*events, f"{GoalEventKind.CONTINUATION.value} #{number}"]}


GOAL_STATUS_MEANING = WorldMeaning(_status_update, fields={"goal_events": GOAL_EVENTS_FIELD})
"""Also what the inspector reads from the `goal_objective` item and the model's goal tool calls."""


def _body(text: str, source: str) -> str | None:
    stripped = text.strip()
    match = re.match(rf'<codex_internal_context\s+source="{source}"\s*>', stripped)
    if match is None or not stripped.endswith(_CLOSE):
        return None
    return stripped[match.end() : -len(_CLOSE)]


# --- goal status (source="user_goal") -----------------------------------------------------------

_STATUS_OPEN = '<codex_internal_context source="user_goal">'
_OBJECTIVE_RE = re.compile(r'goal(?: to)?: "(?P<objective>.*)"$', re.DOTALL)
_STATUS_RE = re.compile(r'status(?: is now)?: "(?P<status>[a-z_]+)"')


def render_goal_status(values: Values) -> str:
    """`objective` (optional: only when the goal is set) and `status`."""
    lines = []
    if values.get("objective") is not None:
        lines.append(f'The user has set a thread goal: "{values["objective"]}"')
    lines.append(f'The goal\'s status is now: "{values["status"]}".')
    return wrap(_STATUS_OPEN, "\n".join(lines), _CLOSE)


def recognise_goal_status(text: str) -> Values | None:
    """Objective (when the message sets a goal) and status, from ctxscope's or Codex's wording."""
    body = _body(text, "user_goal")
    if body is None:
        return None
    # The status line is last; everything before it is the line naming the objective (which may
    # itself span lines).
    head, _, last = body.strip("\n").rpartition("\n")
    values: Values = {}
    if head:
        match = _OBJECTIVE_RE.search(head)
        if match is not None:
            values["objective"] = match.group("objective")
    status = _STATUS_RE.search(last)
    values["status"] = status.group("status") if status else None
    return values


GOAL_STATUS_SPEC = FragmentSpec(
    kind="goal_status",
    roles=("user",),
    recognise=recognise_goal_status,
    render=render_goal_status,
    label=lambda values: (
        f"goal_status:{GoalEventKind.CLEARED.value if _is_cleared(values) else values['status']}"
    ),
    description="the user set, paused or resumed the thread goal",
    world=GOAL_STATUS_MEANING,
)

# --- goal continuation (source="goal") ----------------------------------------------------------

_CONTINUATION_OPEN = '<codex_internal_context source="goal">'
_CONTINUATION = """\
This turn was started by the harness, not by a new user message: a thread goal is active. Its \
objective is the `goal_objective` item earlier in this conversation (call get_goal if it is missing \
or cut short).

Continuation behavior:
- Pick up where the last turn stopped and move the objective forward with concrete work.
- Keep the whole objective in view; do not narrow it to what is easy.

Budget:
- Tokens used: {used}
- Token budget: {budget}
- Tokens remaining: {remaining}

Work from evidence:
- Check files, command output and test results now; what you remember may be stale.

No-progress check:
- Say whether the last turn made progress, is waiting on something verifiable, or made none; if none, \
change approach.

Fidelity:
- Deliver what the objective asks for, not an approximation of it.

Completion audit:
- Before calling the goal done, check every requirement of the objective against evidence.

Blocked audit:
- Call the goal blocked only after the same obstacle stopped you repeatedly and no other path is left.

Call update_goal with status "complete" once the audit passes, "blocked" when the blocked audit \
holds, and do not call it otherwise."""

_BUDGET_RE = {
    "tokens_used": re.compile(r"^- Tokens used: (\d+)$", re.MULTILINE),
    "token_budget": re.compile(r"^- Token budget: (\d+|none)$", re.MULTILINE),
    "tokens_remaining": re.compile(r"^- Tokens remaining: (\d+|unbounded)$", re.MULTILINE),
}


def render_goal_continuation(values: Values) -> str:
    """`tokens_used`, `token_budget` (None: no budget) and `tokens_remaining` (None: unbounded)."""
    budget = values.get("token_budget")
    remaining = values.get("tokens_remaining")
    body = _CONTINUATION.format(
        used=values["tokens_used"],
        budget="none" if budget is None else budget,
        remaining="unbounded" if remaining is None else remaining,
    )
    return wrap(_CONTINUATION_OPEN, body, _CLOSE)


def recognise_goal_continuation(text: str) -> Values | None:
    """The budget lines of a continuation message (ctxscope's or Codex's); forms that carry the
    objective inside (`<objective>`) are the `goal` kind instead."""
    body = _body(text, "goal")
    if body is None or "<objective>" in body:
        return None
    values: Values = {}
    for key, pattern in _BUDGET_RE.items():
        match = pattern.search(body)
        raw = match.group(1) if match else None
        values[key] = int(raw) if raw is not None and raw.isdigit() else None
    return values


GOAL_CONTINUATION_SPEC = FragmentSpec(
    kind="goal_continuation",
    roles=("user",),
    recognise=recognise_goal_continuation,
    render=render_goal_continuation,
    label=lambda values: "goal_continuation",
    description="the harness started a goal turn (budget lines change per turn)",
    world=WorldMeaning(_continuation_update, fields={"goal_events": GOAL_EVENTS_FIELD}),
)

# --- goal objective item ------------------------------------------------------------------------


def goal_objective_item(objective: str) -> dict[str, Any]:
    """The objective as Codex sends it: a function-call output with no call id."""
    return {
        "type": "function_call_output",
        "id": f"fco_{uuid.uuid4().hex}",
        "name": GOAL_OBJECTIVE_NAME,
        "namespace": "agent",
        "output": objective,
    }


def goal_objective_of(item: Any) -> str | None:
    """The objective when `item` is a `goal_objective` item, else None."""
    if (
        isinstance(item, dict)
        and item.get("type") == "function_call_output"
        and item.get("name") == GOAL_OBJECTIVE_NAME
        and not item.get("call_id")
    ):
        output = item.get("output")
        return output if isinstance(output, str) else None
    return None

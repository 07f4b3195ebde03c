"""Mode events: what plan mode did in a turn, read from the items the turn added.

Every plan-mode message the harness sends is recognised through the harness's own definitions (the
`<collaboration_mode>` and plan-mode reminder fragments, the still-planning refusal, the submission
output, the workspace-change note, the implement and fresh-handoff messages, the `<proposed_plan>`
parser), in ctxscope's requests and, for the Codex shapes, in real Codex CLI requests:

  mode default → plan
  plan submitted (revision 2)
  tool apply_patch blocked while planning
  workspace changed by a planning command: notes.txt
  mode plan → default (plan revision 2 approved)

Pure: items in, `ModeEvent` records out; the revision count continues from the previous turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harness.modes.plan.parser import split_proposed_plan
from harness.modes.plan.texts import (
    IMPLEMENT_PROMPT,
    PLAN_SUBMITTED_SIBLING,
    recognise_fresh_prompt,
    recognise_submitted,
    recognise_workspace_note,
)
from harness.tools import recognise_still_planning
from harness.tools.gate import UPDATE_PLAN_IN_PLAN_MODE
from inspector.analysis.items import Item

__all__ = ["ModeEvent", "ModeEventKind", "mode_events"]

ModeEventKind = Literal[
    "mode_change",
    "plan_submitted",
    "tool_blocked",
    "tool_not_run",
    "workspace_changed",
    "plan_reminder",
    "plan_handoff",
]

_REMINDERS = {
    "active": "plan-mode reminder",
    "reentered": "plan re-entry reminder (the previous plan)",
    "recovery": "plan recovery message (rules and plan carried over a compaction)",
}


@dataclass(frozen=True)
class ModeEvent:
    """One thing plan mode did, and the sentence the timeline shows."""

    kind: ModeEventKind
    sentence: str


def _user_text(item: Item) -> str | None:
    return item.text if item.kind == "user_message" else None


def _outputs(item: Item) -> str | None:
    if item.type in ("function_call_output", "custom_tool_call_output") and isinstance(item.raw, dict):
        output = item.raw.get("output")
        return output if isinstance(output, str) else None
    return None


def mode_events(
    added: list[Item], all_items: list[Item], mode: str | None, revisions: int
) -> tuple[list[ModeEvent], str | None, int]:
    """Events of the `added` items; `mode` and `revisions` are where the thread stood before.

    Returns the events, the collaboration mode and the revision count after them."""
    names = {
        i.raw.get("call_id"): i.raw.get("name")
        for i in all_items
        if i.type in ("function_call", "custom_tool_call") and isinstance(i.raw, dict)
    }
    events: list[ModeEvent] = []
    for n, item in enumerate(added):
        for part in item.fragments:
            if part.kind == "collaboration_mode":
                new = str(part.values.get("mode", "default"))
                old = mode or "default"
                if new != old:
                    approved = _approved(added[n + 1 :], old, revisions)
                    events.append(ModeEvent("mode_change", f"mode {old} → {new}{approved}"))
                mode = new
            elif part.kind == "plan_mode_reminder":
                event = str(part.values.get("event", ""))
                said = _REMINDERS.get(event, f"plan-mode message ({event})")
                events.append(ModeEvent("plan_reminder", said))
        if item.kind == "assistant_message" and split_proposed_plan(item.text).plan is not None:
            revisions += 1
            events.append(ModeEvent("plan_submitted", f"plan submitted (revision {revisions})"))
        text = _user_text(item)
        if text is not None and (path := recognise_fresh_prompt(text)) is not None:
            events.append(ModeEvent("plan_handoff", f"implementing the approved plan in {path} (new thread)"))
        output = _outputs(item)
        if output is None:
            continue
        tool = str(names.get(item.raw.get("call_id"), "?"))
        blocked = recognise_still_planning(output)
        if blocked is not None or output == UPDATE_PLAN_IN_PLAN_MODE:
            events.append(ModeEvent("tool_blocked", f"tool {blocked or tool} blocked while planning"))
        elif output == PLAN_SUBMITTED_SIBLING:
            events.append(ModeEvent("tool_not_run", f"tool {tool} not run: a plan was submitted"))
        elif (revision := recognise_submitted(output)) is not None:
            revisions = max(revisions, revision)
            events.append(ModeEvent("plan_submitted", f"plan submitted (revision {revision})"))
        elif (paths := recognise_workspace_note(output)) is not None:
            events.append(
                ModeEvent("workspace_changed", "workspace changed by a planning command: " + ", ".join(paths))
            )
    return events, mode, revisions


def _approved(rest: list[Item], old: str, revisions: int) -> str:
    """`(plan revision N approved)` when leaving plan mode is followed by the implement request."""
    if old != "plan" or revisions == 0:
        return ""
    for item in rest:
        text = _user_text(item)
        if text is not None:
            return f" (plan revision {revisions} approved)" if text.strip() == IMPLEMENT_PROMPT else ""
    return ""

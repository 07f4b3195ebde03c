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

A submission is told on the turn whose answer made it, not on the next request that carries it as
history, and only in the client's own protocol, read from the request (`submission_tool`): a
`<proposed_plan>` block while the collaboration mode is plan, where tools[] declares no submission
tool (Codex, ctxscope's codex profile); otherwise the first call of the declared tool
(`exit_plan_mode` claude, `submit_plan` knightcode), and a block is only text. At most one
submission per answer (the harness runs no sibling after one), and for blocks one per turn (the
first block of a turn is its plan, as in Codex); the harness's confirmation in the
next request ("Plan submitted as revision N") sets the count, so the numbers are the harness's own.
Pure: items and the answer in, `ModeEvent` records out; the revision count continues from the
previous turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ctxscope.harness.modes.plan.parser import split_proposed_plan
from ctxscope.harness.modes.plan.texts import (
    IMPLEMENT_PROMPT,
    PLAN_SUBMITTED_SIBLING,
    recognise_fresh_inline_prompt,
    recognise_fresh_prompt,
    recognise_submitted,
    recognise_workspace_note,
)
from ctxscope.harness.tools import recognise_still_planning
from ctxscope.harness.tools.gate import recognise_update_plan_refused
from ctxscope.inspector.analysis.answers import Answer
from ctxscope.inspector.analysis.growing import grown
from ctxscope.inspector.analysis.items import Item

__all__ = ["CallNames", "ModeEvent", "ModeEventKind", "call_names", "mode_events", "request_mode"]

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
    "replanned": "plan re-entry reminder (the previous plan was not approved)",
    "recovery": "plan recovery message (rules and plan carried over a compaction)",
}


@dataclass(frozen=True)
class ModeEvent:
    """One thing plan mode did, and the sentence the timeline shows."""

    kind: ModeEventKind
    sentence: str


CallNames = Mapping[object, object]
"""call_id → the name of the tool call that made it, over a turn's whole input."""

_CALL_TYPES = ("function_call", "custom_tool_call")


def call_names(items: Iterable[Item], carried: CallNames | None = None) -> CallNames:
    """The call names of `items`, continuing `carried` (the names of the items before them).

    A turn that appends to its thread's previous turn adds its own items to the previous turn's
    map instead of re-reading the whole history (which made the analysis O(n²) in the turns), and
    without copying it (`growing.grown`): the carried map never changes, so a carry that two turns
    continue from (a fork, a re-analysed turn) stays as it was."""
    new = [
        (i.raw.get("call_id"), i.raw.get("name"))
        for i in items
        if i.type in _CALL_TYPES and isinstance(i.raw, dict)
    ]
    return grown(carried, new)


def _user_text(item: Item) -> str | None:
    return item.text if item.kind == "user_message" else None


def _outputs(item: Item) -> str | None:
    if item.type in ("function_call_output", "custom_tool_call_output") and isinstance(item.raw, dict):
        output = item.raw.get("output")
        return output if isinstance(output, str) else None
    return None


_MODEL_OUTPUT_TYPES = frozenset({"reasoning", "function_call", "custom_tool_call"})


def _fresh_tail(items: Sequence[Item]) -> list[Item]:
    """The items after the last one the model produced: what a thread's first request brought itself.

    The first request of a capture may carry a whole session's history (a resumed session, a
    handoff into a new window); what the model said and did in it happened before the capture."""
    last = -1
    for n, item in enumerate(items):
        if (
            item.kind == "assistant_message"
            or item.type in _MODEL_OUTPUT_TYPES
            or item.type.endswith("_call")
        ):
            last = n
    return list(items[last + 1 :])


def _history_revisions(items: Sequence[Item], revisions: int, submit_tool: str | None) -> int:
    """The plan revisions submitted in history the capture did not see happen."""
    mode: str | None = None
    for item in items:
        mode = _history_mode([item], mode)
        block = submit_tool is None and mode == "plan" and item.kind == "assistant_message"
        if block and split_proposed_plan(item.text).plan is not None:
            revisions += 1
        output = _outputs(item)
        if output is not None and (revision := recognise_submitted(output)) is not None:
            revisions = revision
    return revisions


def _history_mode(items: Sequence[Item], mode: str | None) -> str | None:
    for item in items:
        for part in item.fragments:
            if part.kind == "collaboration_mode":
                mode = str(part.values.get("mode", "default"))
    return mode


def request_mode(items: Sequence[Item], mode: str | None) -> str | None:
    """The collaboration mode a request was sent in: `mode` (where its thread stood) changed by the
    mode fragments of `items` (what it added; a thread's first request: its whole input)."""
    return _history_mode(items, mode)


def _block_this_turn(items: Sequence[Item]) -> bool:
    """Whether the harness turn a request continues (the items since its last user message) already
    held a `<proposed_plan>` block: the first block of a turn is its plan, later ones are not."""
    for item in reversed(items):
        if item.kind == "user_message":
            return False
        if item.kind == "assistant_message" and split_proposed_plan(item.text).plan is not None:
            return True
    return False


def _submission(
    answer: Answer | None, planning: bool, submit_tool: str | None, all_items: Sequence[Item]
) -> bool:
    """Whether the answer submitted a plan in the request's protocol (see the module docstring)."""
    entered = False
    for answered in answer.items if answer is not None else []:
        if submit_tool is None and planning and answered.plan is not None:
            return not _block_this_turn(all_items)
        if answered.type == "function_call" and answered.name == "enter_plan_mode":
            entered = True  # claude: consent switches mid-batch, the next call already plans
        elif answered.type == "function_call" and answered.name == submit_tool and (planning or entered):
            return True
    return False


def mode_events(
    added: Sequence[Item],
    all_items: Sequence[Item],
    mode: str | None,
    revisions: int,
    *,
    names: CallNames | None = None,
    answer: Answer | None = None,
    initial: bool = False,
    submit_tool: str | None = None,
) -> tuple[list[ModeEvent], str | None, int]:
    """Events of the `added` items and of the turn's `answer`; `mode` and `revisions` are where the
    thread stood before.

    `initial`: the first turn of a thread (nothing before it in the capture). Its context sets the
    mode and the revision count silently (a resumed session's re-materialised context is not a
    switch), and only what the request brought itself, after the history, is told.
    A submission belongs to the turn whose answer held it, in the request's protocol: `submit_tool`
    (`submission_tool` of its tools[]) or, None, a `<proposed_plan>` block while planning; the tool
    output the next request carries confirms its revision. `names`: `call_names(all_items)`, carried
    along the thread by the analysis (read from `all_items` when not given). Returns the events, the
    collaboration mode and the revision count after them."""
    if names is None:
        names = call_names(all_items)
    events: list[ModeEvent] = []
    if initial:
        tail = _fresh_tail(all_items)
        history = all_items[: len(all_items) - len(tail)]
        mode = _history_mode(all_items, mode)
        revisions = _history_revisions(history, revisions, submit_tool)
        added = tail
    for n, item in enumerate(added):
        for part in item.fragments:
            if part.kind == "collaboration_mode":
                new = str(part.values.get("mode", "default"))
                old = mode or "default"
                if new != old and not initial:
                    approved = _approved(added[n + 1 :], old, revisions)
                    events.append(ModeEvent("mode_change", f"mode {old} → {new}{approved}"))
                if not initial:
                    mode = new
            elif part.kind == "plan_mode_reminder":
                event = str(part.values.get("event", ""))
                said = _REMINDERS.get(event, f"plan-mode message ({event})")
                events.append(ModeEvent("plan_reminder", said))
        text = _user_text(item)
        if text is not None and (path := recognise_fresh_prompt(text)) is not None:
            events.append(ModeEvent("plan_handoff", f"implementing the approved plan in {path} (new thread)"))
        elif text is not None and recognise_fresh_inline_prompt(text) is not None:
            events.append(ModeEvent("plan_handoff", "implementing the approved plan (new thread)"))
        output = _outputs(item)
        if output is None:
            continue
        tool = str(names.get(item.raw.get("call_id"), "?"))
        blocked = recognise_still_planning(output)
        if blocked is not None or recognise_update_plan_refused(output):
            events.append(ModeEvent("tool_blocked", f"tool {blocked or tool} blocked while planning"))
        elif output == PLAN_SUBMITTED_SIBLING:
            events.append(ModeEvent("tool_not_run", f"tool {tool} not run: a plan was submitted"))
        elif (revision := recognise_submitted(output)) is not None:
            revisions = revision  # told on the turn whose answer made the call; the harness's number
        elif (paths := recognise_workspace_note(output)) is not None:
            events.append(
                ModeEvent("workspace_changed", "workspace changed by a planning command: " + ", ".join(paths))
            )
    if _submission(answer, mode == "plan", submit_tool, all_items):
        revisions += 1
        events.append(ModeEvent("plan_submitted", f"plan submitted (revision {revisions})"))
    return events, mode, revisions


def _approved(rest: Sequence[Item], old: str, revisions: int) -> str:
    """`(plan revision N approved)` when leaving plan mode is followed by the implement request."""
    if old != "plan" or revisions == 0:
        return ""
    for item in rest:
        text = _user_text(item)
        if text is not None:
            return f" (plan revision {revisions} approved)" if text.strip() == IMPLEMENT_PROMPT else ""
    return ""

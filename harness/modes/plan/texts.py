"""Every text plan mode sends or shows, in ctxscope's own words (the shapes follow the seeds).

Kept in one module so a reviewer sees all of plan mode's wording at once, and tests can name them.
"""

from __future__ import annotations

__all__ = [
    "CLAUDE_ACTIVE_REMINDER",
    "CLAUDE_PLAN_TEXT",
    "CODEX_PLAN_TEXT",
    "IMPLEMENT_PROMPT",
    "KNIGHT_PLAN_TEXT",
    "NO_DRAFT",
    "NO_PLAN_TO_APPROVE",
    "PLAN_SUBMITTED_SIBLING",
    "SUBMITTED_OUTPUT",
    "NO_PLAN_EXIT_CODE",
    "WORKSPACE_CHANGED",
    "already_approved",
    "claude_reentry_reminder",
    "fresh_inline_prompt",
    "fresh_prompt",
    "outside_changed",
    "outside_note",
    "plan_recovery",
    "recognise_fresh_inline_prompt",
    "recognise_fresh_prompt",
    "recognise_submitted",
    "recognise_workspace_note",
    "stale_revision",
    "workspace_changed",
    "workspace_note",
]

CODEX_PLAN_TEXT = """\
You are planning, not implementing. Plan mode lasts until a developer message switches the mode; a user
asking you to "just do it" is asking you to plan how to do it.

## What you may do
- Explore read-only: read files, list directories, search, and run commands that only inspect
  (builds or tests that write nothing but caches are fine).
- Ask the user with `request_user_input` about preferences and trade-offs you cannot settle from the
  workspace; explore first, ask second, and offer real options, recommended first.

## What you must not do
- Change the workspace: no patches, no file writes, no formatters or generators, no migrations.

## Finishing
When the plan is decision complete (the implementer has nothing left to decide), answer with exactly
one block, its tags alone on their lines:

<proposed_plan>
# Title
Summary, the concrete changes with paths, interface changes, how to verify (commands, tests),
and the assumptions you made.
</proposed_plan>

At most one block per turn. A revised plan replaces the previous one completely: send it whole."""
"""The Plan fragment's instructions for the codex profile (`<collaboration_mode>` wrapper)."""

IMPLEMENT_PROMPT = "Implement the plan."
"""The user message after "implement" in the same thread (the observed Codex text is this short)."""

PLAN_SUBMITTED_SIBLING = "not run: a plan was submitted"
"""The output of calls in the same batch after a submission."""

NO_DRAFT = "No plan submitted yet; send a task to continue planning."
NO_PLAN_TO_APPROVE = "No plan to approve."


SUBMITTED_OUTPUT = "Plan submitted as revision {revision}. Stop here: the user reviews it."
"""The output of a successful `submit_plan` / `exit_plan_mode` call."""


def recognise_submitted(output: str) -> int | None:
    """The revision a submission tool's output names, or None."""
    head = SUBMITTED_OUTPUT.split("{revision}")[0]
    if not output.startswith(head):
        return None
    number = output[len(head) :].split(".", 1)[0]
    return int(number) if number.isdigit() else None


def recognise_fresh_prompt(text: str) -> str | None:
    """The plan file a "clear context and implement" first message points at, or None."""
    head, _, tail = fresh_prompt("\0").partition("\0")
    if text.startswith(head) and text.endswith(tail) and len(text) > len(head) + len(tail):
        return text[len(head) : len(text) - len(tail)]
    return None


def fresh_prompt(path: str) -> str:
    """The first message of a "clear context and implement" thread: where the approved plan is."""
    return f"Read the approved plan in {path} and implement it."


def stale_revision(asked: int, latest: int) -> str:
    """The refusal for approving a revision that is no longer the latest."""
    return (
        f"revision {asked} is not the latest plan (revision {latest}); review it with /plan and "
        f'approve with "/plan approve {latest}"'
    )


NO_PLAN_EXIT_CODE = 3
"""Exit status of a print-mode planning run (`--plan -p`, `-p "/plan task"`) that submitted no plan."""


def no_plan_submitted(session_id: str) -> str:
    """The notice of such a run (stderr; stdout stays empty)."""
    return (
        f"no plan was submitted, so nothing is printed (exit status {NO_PLAN_EXIT_CODE}); plan on with "
        f'ctxscope agent --session {session_id} -p "<your answer or feedback>"'
    )


def already_approved(revision: int) -> str:
    """The refusal for approving the revision that is already approved (it was implemented)."""
    return f"plan revision {revision} is already approved; /plan starts a new planning cycle"


KNIGHT_PLAN_TEXT = """\
Plan mode is on: investigate, then submit a plan; do not implement. It ends only when the user leaves it.

- Explore with the read and search tools; shell commands must only inspect (a command that changes
  files is reported to the user).
- Ask with `ask_user` when a trade-off cannot be settled from the workspace: 2-4 options, the
  recommended one first. Without a user the recommended option is taken and recorded as an assumption.
- Submit with `submit_plan(plan)`: the goal, the specific changes with paths, the verification commands,
  and the assumptions. Each submission replaces the whole draft and ends your turn.
- You cannot approve your own plan. Feedback from the user is a request to revise it."""
"""The Plan fragment's instructions for the knightcode profile."""

CLAUDE_PLAN_TEXT = """\
Plan mode is active. The user wants a plan before any change: do not edit files, run mutating commands
or change the system in any way until the user approves the plan.

1. Explore the code read-only (read, search, list, inspecting commands).
2. Design the approach and weigh the trade-offs; ask with `ask_user_question` if something only the
   user can decide.
3. Present the finished plan with `exit_plan_mode(plan)`; the harness keeps it in the session's plan
   file. End every planning turn either with a question or with that call. The user approves, asks
   for changes or rejects it."""
"""The Plan fragment's instructions for the claude profile."""

CLAUDE_ACTIVE_REMINDER = (
    "Plan mode is still active: explore read-only and finish with exit_plan_mode(plan) or a question; "
    "do not change anything yet."
)
"""Sent at the start of each further planning turn of the claude profile."""


def claude_reentry_reminder(previous_plan: str, revision: int, implemented: bool = True) -> str:
    """The claude profile's reminder on the first turn of a planning cycle after an earlier one:
    what happened to the previous plan (implemented, or left without approval), and what to do."""
    if implemented:
        happened = f"You are planning again after an earlier plan (revision {revision}) was approved and implemented."
    else:
        happened = (
            f"You are planning again. The user left plan mode without approving the previous plan "
            f"(revision {revision}), so it was not implemented."
        )
    return (
        f"{happened} Read the previous plan below. If the user's new request is a different task, write "
        "a new plan that replaces it; if it is the same task, revise that plan.\n\nPrevious plan:\n" + previous_plan
    )


def plan_recovery(rules: str, plan: str | None, approved: bool) -> str:
    """The frozen message a compaction carries into the new window: the rules and the current draft."""
    if plan is None:
        return f"{rules}\n\nNo plan has been submitted yet."
    which = "The approved plan" if approved else "The current draft"
    return f"{rules}\n\n{which}:\n{plan}"


def fresh_inline_prompt(plan: str) -> str:
    """The first message of a fresh session in the knightcode and claude profiles: the whole plan."""
    return f"Implement this approved plan:\n\n{plan}"


def recognise_fresh_inline_prompt(text: str) -> str | None:
    """The plan a knightcode or claude fresh session's first message carries, or None."""
    head = fresh_inline_prompt("")
    return text[len(head) :] if text.startswith(head) and len(text) > len(head) else None


WORKSPACE_CHANGED = "workspace changed by a planning command: "
"""How the note and the notice start (the inspector recognises the note by it)."""


def workspace_changed(paths: list[str], limit: int = 10) -> str:
    """`workspace changed by a planning command: a.txt, b.txt (+3 more)`."""
    shown = ", ".join(paths[:limit]) + (f" (+{len(paths) - limit} more)" if len(paths) > limit else "")
    return WORKSPACE_CHANGED + shown


def workspace_note(paths: list[str]) -> str:
    """The line added to a shell call's output when it changed files while planning."""
    return (
        f"[ctxscope] {workspace_changed(paths)}. Plan mode must not change the workspace: tell the "
        "user what changed, and use only commands that inspect."
    )


OUTSIDE_CHANGED = "files outside the workspace changed while a planning command ran: "


def outside_changed(paths: list[str], limit: int = 10) -> str:
    """`files outside the workspace changed while a planning command ran: /tmp/x (+2 more)`."""
    shown = ", ".join(paths[:limit]) + (f" (+{len(paths) - limit} more)" if len(paths) > limit else "")
    return OUTSIDE_CHANGED + shown


def outside_note(paths: list[str]) -> str:
    """The line added to a shell call's output when files next to the workspace or in /tmp changed."""
    return (
        f"[ctxscope] {outside_changed(paths)}. If this command wrote them, tell the user; another "
        "program may have written them too."
    )


def recognise_workspace_note(output: str) -> list[str] | None:
    """The paths of a workspace-change note at the end of a tool output, or None."""
    marker = "[ctxscope] " + WORKSPACE_CHANGED
    at = output.rfind(marker)
    if at < 0:
        return None
    rest = output[at + len(marker) :].split(". Plan mode must not", 1)[0]
    return [p.strip() for p in rest.split(",") if p.strip()]

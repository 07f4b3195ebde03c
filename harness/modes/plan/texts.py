"""Every text plan mode sends or shows, in ctxscope's own words (the shapes follow the seeds).

Kept in one module so a reviewer sees all of plan mode's wording at once, and tests can name them.
"""

from __future__ import annotations

__all__ = [
    "CODEX_PLAN_TEXT",
    "IMPLEMENT_PROMPT",
    "NO_DRAFT",
    "NO_PLAN_TO_APPROVE",
    "PLAN_SUBMITTED_SIBLING",
    "fresh_prompt",
    "stale_revision",
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
  Calls that would change something are refused while planning.

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


def fresh_prompt(path: str) -> str:
    """The first message of a "clear context and implement" thread: where the approved plan is."""
    return f"Read the approved plan in {path} and implement it."


def stale_revision(asked: int, latest: int) -> str:
    """The refusal for approving a revision that is no longer the latest."""
    return (
        f"revision {asked} is not the latest plan (revision {latest}); review it with /plan and "
        f'approve with "/plan approve {latest}"'
    )

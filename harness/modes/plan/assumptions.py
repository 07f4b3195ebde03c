"""Decisions taken without the user, carried into the plan they shaped.

Headless, a question is answered with its recommended option and the decision is recorded
(`PlanState.assumptions`). KnightCode's manual: the decision is recorded "under Assumptions" — so a
submitted plan whose `## Assumptions` section does not name a recorded decision gets it added there
(a "none" placeholder is replaced); a plan without the section gets one at its end.
"""

from __future__ import annotations

import re

__all__ = ["with_assumptions"]

_HEADING = re.compile(r"^#{1,6}\s+assumptions\b.*$", re.IGNORECASE)
_ANY_HEADING = re.compile(r"^#{1,6}\s")
_NONE = re.compile(r"^\s*(?:[-*]\s*)?(?:none|n/a|nothing)\.?\s*$", re.IGNORECASE)


def with_assumptions(plan: str, assumptions: list[str]) -> str:
    """`plan` with every assumption it does not mention yet listed under its Assumptions heading."""
    missing = [a for a in assumptions if a not in plan]
    if not missing:
        return plan
    items = [f"- {a}" for a in missing]
    lines = plan.rstrip("\n").splitlines()
    start = next((n for n, line in enumerate(lines) if _HEADING.match(line)), None)
    if start is None:
        return "\n".join([*lines, "", "## Assumptions", *items]) + "\n"
    end = next((n for n in range(start + 1, len(lines)) if _ANY_HEADING.match(lines[n])), len(lines))
    body = [line for line in lines[start + 1 : end] if not _NONE.match(line)]
    while body and not body[-1].strip():
        body.pop()
    tail = lines[end:]
    section = [lines[start], *body, *items, *([""] if tail else [])]
    return "\n".join([*lines[:start], *section, *tail]) + "\n"

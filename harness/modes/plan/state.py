"""The plan state a session keeps on its branch: mode, revisions of the draft, assumptions, approval.

Saved whole as a `plan_state` session entry after every change (the last one on the branch wins), so
resume and fork restore it exactly. Loading is strict (`extra="forbid"`, typed fields): a state this
version cannot read fails closed with a one-line error instead of planning on a guess.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ctxscope.harness.plan_profiles import PLAN_PROFILES, PlanProfileName
from ctxscope.proxy.errors import ConfigError

__all__ = ["PLAN_PROFILES", "PlanProfileName", "PlanState", "load_plan_state"]


class PlanState(BaseModel):
    """Everything plan mode remembers about one session branch."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    profile: PlanProfileName = "codex"
    active: bool = False
    """Planning now (the plan mode is the session's mode)."""
    revisions: list[str] = Field(default_factory=list)
    """Every submitted draft, oldest first; revision N is `revisions[N - 1]`."""
    assumptions: list[str] = Field(default_factory=list)
    """Decisions taken without the user (headless questions answered with the recommended option)."""
    approved: int | None = None
    """The approved revision; cleared when a new planning cycle starts."""
    cycles: int = Field(default=0, ge=0)
    """How many times plan mode was entered (a re-entry after an implementation is cycle 2+)."""
    previous: Literal["implemented", "left"] | None = None
    """How the cycle before this one ended: its plan was approved and implemented, or the user left
    plan mode without approving (claude's re-entry reminder says which)."""

    @model_validator(mode="after")
    def _consistent(self) -> PlanState:
        # Fields that contradict each other would plan (or implement) on a guess: refuse the state.
        if self.approved is not None and not 1 <= self.approved <= self.revision:
            raise ValueError(f"approved revision {self.approved} of {self.revision}")
        if self.active and self.approved is not None:
            raise ValueError(f"planning (active) with revision {self.approved} already approved")
        if self.active and self.cycles < 1:
            raise ValueError("planning (active) in cycle 0: entering plan mode counts a cycle")
        return self

    @property
    def revision(self) -> int:
        """The latest revision number (0 = nothing submitted)."""
        return len(self.revisions)

    @property
    def draft(self) -> str | None:
        return self.revisions[-1] if self.revisions else None

    def diff(self) -> str:
        """Unified diff between the last two revisions ("" when there are fewer than two)."""
        if len(self.revisions) < 2:
            return ""
        n = self.revision
        lines = difflib.unified_diff(
            self.revisions[-2].splitlines(keepends=True),
            self.revisions[-1].splitlines(keepends=True),
            fromfile=f"revision {n - 1}",
            tofile=f"revision {n}",
        )
        return "".join(lines)


def load_plan_state(data: Any, where: str) -> PlanState:
    """Validate a saved state; `ConfigError` naming `where` (the session file) when it is malformed."""
    try:
        return PlanState.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        at = ".".join(str(p) for p in first["loc"]) or "state"
        raise ConfigError(
            f"{where}: the saved plan state is malformed ({at}: {first['msg']}); "
            "fix or remove its last plan_state entry before resuming"
        ) from e

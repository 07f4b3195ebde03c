"""`PlanController`: one session's plan state and every action on it (enter, submit, approve, exit).

The mode object (`PlanMode`) decides what happens inside a turn; the controller owns what outlives a
turn: the revisions, the approval, saving them on the session branch, and the review choices.

- Leaving plan mode is the user's action only (`approve`, `exit`); the model can only submit.
- Approval is checked and saved under the session file's lock before implementation starts: a
  revision that is no longer the latest is refused (also when another process submitted meanwhile).
- "implement" stays in the thread: the Default fragment, then `Implement the plan.`; "fresh"
  ("clear context and implement") writes the plan to a file in the ctxscope home and starts a new
  session whose first message points at it (as Codex does); the original session stays resumable.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ctxscope.harness.events import PlanApproved, PlanSubmitted
from ctxscope.harness.modes.default import DefaultMode
from ctxscope.harness.modes.plan.assumptions import with_assumptions
from ctxscope.harness.modes.plan.mode import PlanMode
from ctxscope.harness.modes.plan.profiles import planning_mode
from ctxscope.harness.modes.plan.state import PlanState, load_plan_state
from ctxscope.harness.modes.plan.texts import (
    IMPLEMENT_PROMPT,
    NO_PLAN_TO_APPROVE,
    already_approved,
    fresh_inline_prompt,
    fresh_prompt,
    stale_revision,
)
from ctxscope.harness.modes.plan.tools import DECLARED_ON_FIRST_PLAN
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.files import write_private
from ctxscope.proxy.home import ctxscope_home

if TYPE_CHECKING:
    from ctxscope.harness.agent import Agent, TurnResult

__all__ = ["Approval", "PlanController", "approved_plan_path", "default_mode", "plan_file"]

NewSession = Callable[[], "PlanController"]
"""Starts a new session with the same settings and returns its controller (the runtime's `/new`)."""


def default_mode() -> DefaultMode:
    """Default mode that announces itself: sent when planning ends, so the plan rules do not linger."""
    return DefaultMode(collaboration_mode="default")


def plan_file(session_id: str) -> Path:
    """The claude profile's plan file: `<ctxscope home>/plans/<session id>.md` (Claude Code keeps the
    plan in a file; ctxscope keeps the latest revision there, owner-only)."""
    return ctxscope_home() / "plans" / f"{session_id}.md"


def approved_plan_path() -> Path:
    """A new file for an approved plan: `<ctxscope home>/attachments/<uuid>/approved-plan.md`."""
    folder = ctxscope_home() / "attachments" / str(uuid.uuid4())
    folder.mkdir(parents=True, mode=0o700)
    return folder / "approved-plan.md"


@dataclass(frozen=True)
class Approval:
    """What `approve` did: the revision, the agent that implements it, and its first turn."""

    revision: int
    agent: Agent
    turn: TurnResult | None


@dataclass
class PlanController:
    """Plan state of one session (see the module docstring)."""

    agent: Agent
    state: PlanState = field(default_factory=PlanState)
    new_session: NewSession | None = None

    # ---- loading and saving ------------------------------------------------------------------

    @classmethod
    def restore(cls, agent: Agent, saved: object, new_session: NewSession | None = None) -> PlanController:
        """The controller of a resumed (or forked) session: its saved state, its mode, no events."""
        state = load_plan_state(saved, str(agent.session.path))
        controller = cls(agent, state, new_session)
        if state.active:
            # Restoring is not a mode change: the history already holds the Plan fragment.
            agent.modes.switch(controller.planning_mode())
        return controller

    def save(self) -> None:
        self.agent.session.append("plan_state", self.state.model_dump(mode="json"))

    def planning_mode(self) -> PlanMode:
        router = self.agent.router
        tools = tuple(n for n in router.tools if n in router.enabled and n not in router.withheld)
        return planning_mode(self.state.profile, self, tools)

    def assume(self, assumption: str) -> None:
        """Record a decision taken without the user (a headless question)."""
        self.state = self.state.model_copy(update={"assumptions": [*self.state.assumptions, assumption]})
        self.save()

    # ---- the user's actions ------------------------------------------------------------------

    @property
    def planning(self) -> bool:
        return self.agent.mode.name == "plan"

    @property
    def plan_file(self) -> Path | None:
        """Where the latest revision is kept as a file (the claude profile), or None."""
        return plan_file(self.agent.session_id) if self.state.profile == "claude" else None

    def enter(self) -> None:
        """Start a planning cycle (a no-op while planning): approval is cleared, the draft kept."""
        if self.planning:
            return
        # After an implementation the decisions taken for the old plan no longer apply.
        implemented = self.state.approved is not None
        assumptions = [] if implemented else self.state.assumptions
        previous = "implemented" if implemented else ("left" if self.state.cycles else None)
        self.state = self.state.model_copy(
            update={"active": True, "approved": None, "assumptions": assumptions, "previous": previous}
        )
        self.state.cycles += 1
        self.save()
        # The profile's tools that wait for the first planning are declared now, for good.
        self.agent.router.enabled |= DECLARED_ON_FIRST_PLAN.get(self.state.profile, frozenset())
        self.agent.set_mode(self.planning_mode())

    def exit(self) -> None:
        """Leave plan mode without implementing; the draft stays."""
        if not self.planning:
            raise ConfigError("not in plan mode: nothing to exit")
        self.state = self.state.model_copy(update={"active": False})
        self.save()
        self.agent.set_mode(default_mode())

    def submit(self, plan: str) -> int:
        """The model's submission: the whole draft becomes the next revision, with the decisions taken
        without the user under its Assumptions (`assumptions.py`)."""
        plan = with_assumptions(plan, self.state.assumptions)
        self.state = self.state.model_copy(update={"revisions": [*self.state.revisions, plan]})
        self.save()
        if self.plan_file is not None:
            path = self.plan_file
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_private(path, lambda f: f.write(plan if plan.endswith("\n") else plan + "\n"))
        self.agent.emit(PlanSubmitted(revision=self.state.revision, plan=plan))
        return self.state.revision

    def approve(self, revision: int | None = None, *, fresh: bool = False) -> Approval:
        """Approve `revision` (default: the latest) and implement it; see the module docstring."""
        session = self.agent.session
        with session.locked() as entries:
            # Another process may have submitted or approved since this one loaded the session.
            saved = [e.payload for e in entries if e.type == "plan_state"]
            if saved:
                self.state = load_plan_state(saved[-1], str(session.path))
            latest = self.state.revision
            if latest == 0:
                raise ConfigError(NO_PLAN_TO_APPROVE)
            if revision is not None and revision != latest:
                raise ConfigError(stale_revision(revision, latest))
            if self.state.approved == latest:
                raise ConfigError(already_approved(latest))
            self.state = self.state.model_copy(update={"approved": latest, "active": False})
            self.save()  # approval is saved before implementation starts
        plan = self.state.revisions[latest - 1]
        if not fresh:
            self.agent.set_mode(default_mode())
            self.agent.emit(PlanApproved(revision=latest, fresh=False, session_id=self.agent.session_id))
            return Approval(latest, self.agent, self.agent.run_turn(IMPLEMENT_PROMPT))
        return self._implement_fresh(latest, plan)

    def _implement_fresh(self, revision: int, plan: str) -> Approval:
        if self.new_session is None:
            raise ConfigError("this front end cannot start a new session: approve without fresh")
        if self.state.profile == "codex":
            # As observed: the plan goes to a file and the first message points at it.
            path = approved_plan_path()
            text = plan if plan.endswith("\n") else plan + "\n"
            write_private(path, lambda f: f.write(text))
            first = fresh_prompt(str(path))
        else:
            first = fresh_inline_prompt(plan)
        # The original session leaves plan mode too, so resuming it does not plan on.
        self.agent.set_mode(default_mode())
        successor = self.new_session()
        agent = successor.agent
        agent.modes.switch(default_mode())
        successor.state = PlanState(profile=self.state.profile, revisions=[plan], approved=1)
        successor.save()
        agent.emit(PlanApproved(revision=revision, fresh=True, session_id=agent.session_id))
        return Approval(revision, agent, agent.run_turn(first))

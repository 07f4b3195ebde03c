"""A session's context: its settings in, world-state snapshots and context items out.

The agent's one door to `ctxscope.harness.context`. The context package defines every fragment (render +
recognise) and the diff rules; `SessionContext` holds the per-session settings (cwd, sandbox, skills,
developer instructions), reads the collaboration mode and its fragment text from the session's
`CurrentMode` at the moment it renders, and turns the package's results into plain wire dicts for
the history. Keeping the coupling here means the loop in `ctxscope.harness.agent` reads as the algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ctxscope.harness.context import (
    ContextSettings,
    WorldState,
    collect_world_state,
    context_update_items,
    initial_context_items,
    model_switch_items,
    selected_skill_items,
    turn_aborted_item,
)
from ctxscope.harness.modes import CurrentMode

__all__ = ["SessionContext"]


def _plain(item: Any) -> dict[str, Any]:
    if isinstance(item, BaseModel):
        return item.model_dump(mode="json", exclude_none=True)
    return dict(item)


@dataclass
class SessionContext:
    """Per-session context inputs; `collect()` snapshots the world each request."""

    settings: ContextSettings
    developer_instructions: str | None = None
    mode: CurrentMode = field(default_factory=CurrentMode)
    """The session's mode (shared with the agent and the tool router); its collaboration mode and
    fragment text are read at each snapshot and render, never copied into `settings`."""
    warnings: list[str] = field(default_factory=list)
    """Problems found while reading skills (malformed SKILL.md ...), surfaced as notices once."""
    last_state: WorldState | None = None

    @property
    def cwd(self) -> Path:
        return Path(self.settings.cwd)

    def collect(self) -> tuple[WorldState, list[str]]:
        """A fresh snapshot, and the warnings not reported before (each is told once per session)."""
        found: list[str] = []
        settings = self.settings.model_copy(update={"collaboration_mode": self.mode.collaboration_mode})
        state = collect_world_state(settings, found)
        self.last_state = state
        new = [w for w in dict.fromkeys(found) if w not in self.warnings]
        self.warnings.extend(new)
        return state, new

    def initial_items(self, state: WorldState) -> list[dict[str, Any]]:
        items = initial_context_items(
            state, self.developer_instructions, collaboration_text=self.mode.fragment_text()
        )
        return [_plain(i) for i in items]

    def update_items(self, prev: WorldState, cur: WorldState) -> list[dict[str, Any]]:
        items = context_update_items(prev, cur, collaboration_text=self.mode.fragment_text())
        return [_plain(i) for i in items]

    def snapshot(self, state: WorldState) -> dict[str, Any]:
        return state.model_dump(mode="json")

    def restore(self, data: dict[str, Any]) -> WorldState:
        return WorldState.model_validate(data)

    def model_switch_items(self, old: str, new: str, instructions: str) -> list[dict[str, Any]]:
        return [_plain(i) for i in model_switch_items(old, new, instructions)]

    def selected_skill_items(self, prompt: str) -> list[dict[str, Any]]:
        """Full text of each `$skill` the prompt mentions (from the skills of the last snapshot)."""
        skills = self.last_state.skills if self.last_state is not None else []
        return [_plain(i) for i in selected_skill_items(prompt, skills)]

    def turn_aborted_items(self) -> list[dict[str, Any]]:
        return [_plain(turn_aborted_item("the user interrupted the turn"))]

    def set_model(self, model: str) -> None:
        self.settings = self.settings.model_copy(update={"model": model})

    def set_cwd(self, cwd: Path) -> None:
        self.settings = self.settings.model_copy(update={"cwd": cwd.resolve()})

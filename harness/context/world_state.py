"""The typed world-state snapshot a request's context is rendered from, and its diff.

One `WorldState` is taken before every model request. The first request of a context window
renders it in full; later requests render only what `diff_world_state` reports as changed.
Sessions persist it as JSON (`model_dump(mode="json")`) so a resumed session keeps its baseline.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ._state_field import ChangeStyle, StateField

__all__ = ["SkillInfo", "WorldState", "diff_world_state", "environment_values", "permissions_values"]


class SkillInfo(BaseModel):
    """A discovered skill: what the catalog shows and where its SKILL.md lives."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    """The `$name` users mention; also the catalog entry name."""
    description: str
    """One line from the front matter."""
    path: str
    """Absolute path of the SKILL.md file."""


class WorldState(BaseModel):
    """Everything about the environment the model is told, as typed values.

    Each field is defined here once, with its `StateField` (label and how a change is told); the
    fragment specs say which fields a fragment sets (`FragmentSpec.world`), and the inspector folds
    recognised fragments into an all-optional variant of this model.
    """

    # Unknown keys from newer session files are dropped, so an old ctxscope can still resume.
    model_config = ConfigDict(extra="ignore", defer_build=True)

    cwd: Annotated[str, StateField("cwd")]
    shell: Annotated[str, StateField("shell")] = "bash"
    current_date: Annotated[str, StateField("date")] = ""
    """YYYY-MM-DD in `timezone`."""
    timezone: Annotated[str, StateField("timezone")] = "UTC"
    network_enabled: Annotated[bool, StateField("network", words=("restricted", "enabled"))] = False
    sandbox_mode: Annotated[str, StateField("sandbox")] = "workspace-write"
    approval_policy: Annotated[str, StateField("approval policy", short="approval")] = "on-request"
    writable_roots: Annotated[list[str], StateField("writable roots", ChangeStyle.LIST, short="writable")] = (
        Field(default_factory=list)
    )
    sandbox_enforcement: Annotated[str | None, StateField("sandbox enforcement", short="enforcement")] = None
    """How the operating system enforces the sandbox here (`ctxscope.harness.sandbox.enforcement`); None:
    not told (older sessions, Codex)."""
    collaboration_mode: Annotated[str | None, StateField("collaboration mode", short="mode")] = None
    """None: no mode fragment is sent (like `codex exec`); else "default" or "plan"."""
    agents_docs: Annotated[
        list[tuple[str, str]], StateField("AGENTS.md files", ChangeStyle.LIST, listed=False)
    ] = Field(default_factory=list)
    """Active AGENTS.md documents in order (global first, then repo root down to cwd): (path, text)."""
    skills: Annotated[
        list[SkillInfo], StateField("skills catalog", ChangeStyle.MEMBERS, key="name", short="skills")
    ] = Field(default_factory=list)
    model: Annotated[str, StateField("model")] = ""
    reasoning_effort: Annotated[str | None, StateField("reasoning effort", short="reasoning")] = None
    goal: Annotated[str | None, StateField("goal", ChangeStyle.TEXT, on_first_turn=True)] = None


def environment_values(state: WorldState) -> dict[str, Any]:
    """The environment_context children for `state`, keyed like the fragment's values (network
    access is told in the permissions fragment only, as Codex 0.169 does)."""
    return {
        "cwd": state.cwd,
        "shell": state.shell,
        "current_date": state.current_date,
        "timezone": state.timezone,
        "workspace_roots": [state.cwd],
        "writable_roots": list(state.writable_roots),
    }


def permissions_values(state: WorldState) -> dict[str, Any]:
    """The permissions fragment's values for `state`."""
    values: dict[str, Any] = {
        "sandbox_mode": state.sandbox_mode,
        "approval_policy": state.approval_policy,
        "network_enabled": state.network_enabled,
        "writable_roots": list(state.writable_roots),
    }
    if state.sandbox_enforcement is not None:
        values["sandbox_enforcement"] = state.sandbox_enforcement
    return values


def diff_world_state(prev: WorldState, cur: WorldState) -> dict[str, tuple[Any, Any]]:
    """Fields whose value changed, as {field: (old, new)} in field order; {} when equal."""
    old, new = prev.model_dump(mode="json"), cur.model_dump(mode="json")
    return {name: (old[name], new[name]) for name in WorldState.model_fields if old[name] != new[name]}

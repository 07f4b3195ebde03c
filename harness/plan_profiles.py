"""The plan-mode systems a session may follow (`plan_profile` in config.toml): codex, claude or
knightcode (see `ctxscope.harness.modes.plan`).

A leaf, so the configuration can check a profile name without loading the plan-mode package (whose
controller drives the agent loop, which reads the configuration).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["PLAN_PROFILES", "PlanProfileName"]

PlanProfileName = Literal["codex", "claude", "knightcode"]
PLAN_PROFILES: tuple[str, ...] = ("codex", "claude", "knightcode")

"""Mode messages of a turn: the fragments a mode or goal adds to the context (plan-mode entry and
exit, plan reminders, goal continuations, aborted turns), named for a timeline mark.
"""

from __future__ import annotations

from typing import Any

from ctxscope.inspector.analysis.analyse import TurnAnalysis

MODE_FRAGMENTS = {
    "collaboration_mode": "mode",
    "plan_mode_reminder": "plan reminder",
    "goal": "goal",
    "turn_aborted": "turn aborted",
    "model_switch": "model switch",
}
"""Fragment kind → the short name a mark shows."""


def _mode_name(values: dict[str, Any]) -> str:
    mode = values.get("mode")
    return f"mode: {mode}" if mode else "mode"


def mode_marks(result: TurnAnalysis) -> list[str]:
    """Marks for this turn: the analysis's plan-mode events (`mode_events`), then the mode
    fragments the turn added that no event covers (goal, aborted turn, model switch), in order."""
    marks: list[str] = [event.sentence for event in result.mode_events]
    covered = {"collaboration_mode", "plan_mode_reminder"} if marks else set()
    for item in result.change.added:
        for part in item.fragments:
            if part.kind not in MODE_FRAGMENTS or part.kind in covered:
                continue
            mark = _mode_name(part.values) if part.kind == "collaboration_mode" else MODE_FRAGMENTS[part.kind]
            if mark not in marks:
                marks.append(mark)
    return marks


__all__ = ["MODE_FRAGMENTS", "mode_marks"]

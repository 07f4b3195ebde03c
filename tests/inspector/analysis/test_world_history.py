"""Where each world-state value got its value, and the turns where the world state changed."""

from __future__ import annotations

from collections.abc import Callable

from ctxscope.inspector.analysis import Analysis
from ctxscope.inspector.analysis.world_history import world_history


def test_values_carry_the_turn_they_changed_at(analysed: Callable[[str], Analysis]) -> None:
    history = world_history(analysed("world"))
    assert history.change_turns == [2, 3]
    assert history.since(3, "cwd") == 2
    assert history.since(3, "goal") == 3
    assert history.since(3, "sandbox_mode") == 1
    assert history.since(1, "cwd") == 1
    assert history.since(9, "cwd") is None


def test_jumps_between_world_changes(analysed: Callable[[str], Analysis]) -> None:
    history = world_history(analysed("world"))
    assert history.next_change(1) == 2
    assert history.next_change(2) == 3
    assert history.next_change(3) is None
    assert history.previous_change(3) == 2
    assert history.previous_change(2) is None


def test_a_session_without_changes_has_none(analysed: Callable[[str], Analysis]) -> None:
    history = world_history(analysed("tools_reordered"))
    assert history.change_turns == []

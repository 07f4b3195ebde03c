"""The two replay knobs as types: how live requests are matched, and how answers are paced.

    strict       each live request must equal the recorded one after normalisation
    sequential   serve in order, note mismatches
    recorded     stream events with their recorded timing
    fast         stream events at once

Kept apart from the addon so checking a flag never imports mitmproxy.
"""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

__all__ = ["MATCH_MODES", "PACE_MODES", "MatchMode", "PaceMode", "is_match_mode", "is_pace_mode"]

MatchMode = Literal["strict", "sequential"]
PaceMode = Literal["recorded", "fast"]

MATCH_MODES: tuple[MatchMode, ...] = get_args(MatchMode)
PACE_MODES: tuple[PaceMode, ...] = get_args(PaceMode)


def is_match_mode(value: object) -> TypeGuard[MatchMode]:
    """Whether `value` names a match mode."""
    return value in MATCH_MODES


def is_pace_mode(value: object) -> TypeGuard[PaceMode]:
    """Whether `value` names a pace mode."""
    return value in PACE_MODES

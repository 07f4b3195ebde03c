"""How a replay runs: `ReplayOptions`, one frozen value the session, the `Replayer` addon, the
`CassetteTransport`, the server and the pytest marker all take, and its two knobs as types.

    strict       each live request must equal the recorded one after normalisation
    sequential   serve in order, note mismatches
    recorded     stream events with their recorded timing
    fast         stream events at once

Kept apart from the addon so checking a flag never imports mitmproxy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard, get_args

from ctxscope.proxy.replay.matching import DEFAULT_MATCH_ON, check_match_on

__all__ = [
    "MATCH_MODES",
    "PACE_MODES",
    "MatchMode",
    "PaceMode",
    "ReplayOptions",
    "is_match_mode",
    "is_pace_mode",
]

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


@dataclass(frozen=True)
class ReplayOptions:
    """Everything that decides how a cassette is replayed; checked when made (ValueError, one line).

    `ReplayOptions.of(options, **changes)` is what the constructors that also take keywords use:
    `CassetteTransport(path, match="sequential")` is `CassetteTransport(path, ReplayOptions(match=...))`.
    """

    match: MatchMode = "strict"
    pace: PaceMode = "fast"
    ignore: tuple[str, ...] = ()
    """JSON paths replaced by `<ignored>` on both sides before comparing."""
    match_on: tuple[str, ...] = DEFAULT_MATCH_ON
    """The matchers a live request must pass (`register_matcher` adds names)."""
    map_paths: tuple[tuple[str, str], ...] = ()
    """(recorded, live) directory prefixes the requests do not reveal."""
    live_cwd: str | None = None
    """The live side's working directory when a request names none (None: the process's cwd)."""
    passthrough_when_exhausted: bool = False
    """Forward what the cassette cannot answer (record mode `new`) instead of answering 410/404."""
    on_event: Callable[[str], None] | None = dataclasses.field(default=None, compare=False)
    """Called with one line per answer or problem (`ctxscope replay` prints them)."""

    def __post_init__(self) -> None:
        if not is_match_mode(self.match):
            raise ValueError(f"match must be one of {MATCH_MODES}, not {self.match!r}")
        if not is_pace_mode(self.pace):
            raise ValueError(f"pace must be one of {PACE_MODES}, not {self.pace!r}")
        # given as any iterables (lists from a marker or a CLI); stored as tuples, so the value is frozen
        object.__setattr__(self, "ignore", tuple(self.ignore))
        object.__setattr__(self, "match_on", check_match_on(tuple(self.match_on)))
        object.__setattr__(self, "map_paths", tuple((str(a), str(b)) for a, b in self.map_paths))

    @classmethod
    def of(cls, options: ReplayOptions | None = None, **changes: Any) -> ReplayOptions:
        """`options` (default: the defaults) with `changes` applied; an unknown name is a TypeError."""
        base = options or cls()
        return dataclasses.replace(base, **changes) if changes else base

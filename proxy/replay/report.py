"""What a replay did: answers served, mismatches, requests past the end of the cassette.

The `Replayer` fills a `ReplayReport` as requests arrive (on the proxy thread); readers on other
threads take `snapshot()`s. `ReplayReport.problems()` lists everything a test should fail on.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from typing import Any

from ctxscope.proxy.errors import ReplayMismatch
from ctxscope.proxy.replay.matching import METADATA_ONLY, metadata_only
from ctxscope.proxy.replay.options import MatchMode

__all__ = ["Mismatch", "ReplayReport"]


@dataclass
class Mismatch:
    """A live request that differed from the cassette entry it was compared with."""

    cassette: str
    entry: str
    """The entry's label, e.g. `exchange 3 (POST /v1/responses)` or `script response 2`."""
    index: int
    """Position of the entry among the cassette's model entries."""
    differences: list[str]
    served: bool
    """True in sequential mode (answered anyway), False in strict mode (answered with an error)."""
    exchange_id: int | None = None
    """The recorded exchange's id (None for script entries)."""
    live_body: Any = None
    """The live request body as received (redacted), for a semantic diff against the recorded one."""

    def line(self) -> str:
        verdict = "served anyway" if self.served else "rejected"
        if metadata_only(self.differences):  # under a stricter match_on: say the context is unchanged
            verdict += f" ({METADATA_ONLY})"
        return f"{self.cassette} {self.entry} {verdict}: " + "; ".join(self.differences)


@dataclass
class ReplayReport:
    """Counters and notes of one replay session."""

    cassette: str
    match: MatchMode
    model_entries: int
    served: int = 0
    """Model requests answered from the cassette."""
    synthesised: int = 0
    """Of those, answers sent as a stream built from the recorded response (an imported trace)."""
    other_served: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    exhausted: list[str] = field(default_factory=list)
    """Requests that came after every model entry had been served ("POST /v1/responses")."""
    unmatched: list[str] = field(default_factory=list)
    """Non-model requests with no recorded answer for their method and path."""
    passed_through: list[str] = field(default_factory=list)
    """Requests forwarded upstream (only in record mode `new`)."""
    in_flight: int = 0
    """Requests taken in whose answer has not been fully sent yet."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def remaining(self) -> int:
        """Model entries not served yet."""
        return self.model_entries - self.served

    def problems(self, *, past_end: bool = True) -> list[str]:
        """One line per thing that went wrong (empty when the replay matched throughout); requests
        after the cassette's end count unless `past_end` is False (a cassette of a session's first
        turns, made with `ctxscope promote`)."""
        out = [m.line() for m in self.mismatches]
        if past_end:
            out += [f"{self.cassette}: cassette exhausted, no answer for {r}" for r in self.exhausted]
        out += [f"{self.cassette}: no recorded answer for {r}" for r in self.unmatched]
        return out

    def raise_for_problems(self) -> None:
        """Raise `ReplayMismatch` (one line: the count and the first problem) if anything went wrong."""
        problems = self.problems()
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise ReplayMismatch(f"{len(problems)} replay problem(s): {problems[0]}{more}")

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON data (what `ctxscope replay --report FILE` writes)."""
        return {
            "cassette": self.cassette,
            "match": self.match,
            "model_entries": self.model_entries,
            "served": self.served,
            "synthesised": self.synthesised,
            "other_served": self.other_served,
            "mismatches": [
                {
                    "entry": m.entry,
                    "index": m.index,
                    "exchange": m.exchange_id,
                    "served": m.served,
                    "differences": m.differences,
                    "live_body": m.live_body,
                }
                for m in self.mismatches
            ],
            "exhausted": self.exhausted,
            "unmatched": self.unmatched,
            "passed_through": self.passed_through,
            "problems": self.problems(),
        }

    def summary(self) -> str:
        """One line for people: served counts and problems."""
        parts = [f"served {self.served}/{self.model_entries} model responses"]
        if self.synthesised:
            parts.append(f"{self.synthesised} as streams synthesised from the recorded responses")
        if self.other_served:
            parts.append(f"{self.other_served} other")
        if self.mismatches:
            parts.append(f"{len(self.mismatches)} mismatch{'es' if len(self.mismatches) > 1 else ''}")
        if self.exhausted:
            parts.append(f"{len(self.exhausted)} past the end")
        if self.unmatched:
            parts.append(f"{len(self.unmatched)} unmatched")
        if self.passed_through:
            parts.append(f"{len(self.passed_through)} recorded new")
        return f"replay of {self.cassette} ({self.match}): " + ", ".join(parts)

    def snapshot(self) -> ReplayReport:
        """A consistent copy, safe to read while the replay goes on."""
        with self._lock:
            clone = copy.copy(self)
            clone.mismatches = list(self.mismatches)
            clone.exhausted = list(self.exhausted)
            clone.unmatched = list(self.unmatched)
            clone.passed_through = list(self.passed_through)
            clone._lock = threading.Lock()
            return clone

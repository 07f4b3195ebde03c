"""The bisect search: which units of a recorded request's context flip the answer.

One recording: the units of turn N's request (`ctxscope.inspector.analysis.units`) are removed in groups,
each edited request is sent, and the answer is classified by the predicate; ddmin finds the
smallest set of units whose removal flips it; a long fragment among them (the AGENTS.md) is then
searched line by line (`refine`), so the answer names the line, not the file. Two recordings (GOOD,
BAD): BAD's differences from GOOD's request of turn N are applied to GOOD's in groups, to find which
of them alone flips it.

Models are not deterministic: with `repeat` K each request is asked K times and the majority
decides. The baseline (the predicate on the request as recorded, or on GOOD's) is asked live the
same way first, so a flip is a change against what the backend answers now, not against a
recording made with another model version. An attempt that fails (the backend rejects the edited
request, the stream breaks) gives no verdict; a set whose attempts all fail is reported as
rejected and never counted as a flip.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ctxscope.bisect.ddmin import ddmin
from ctxscope.bisect.predicates import Predicate, answer_gist
from ctxscope.inspector.analysis.answers import Answer

__all__ = ["Attempt", "BisectOutcome", "Probe", "refine", "search"]

Send = Callable[[dict[str, Any]], Answer]
"""Sends one body and returns the answer; raises for a failed attempt (its message is kept)."""


@dataclass
class Attempt:
    """One set tried: what was changed, how each answer read, the verdict."""

    changed: list[str]
    holds: list[bool]
    """The predicate on each answer that came back."""
    errors: list[str]
    verdict: bool | None
    """True: flipped against the baseline; False: not; None: no answer (rejected)."""
    gists: list[str] = field(default_factory=list)


@dataclass
class BisectOutcome:
    predicate: str
    baseline: bool | None
    """The predicate on the unchanged request (majority of `repeat` live answers)."""
    recorded: bool
    """The predicate on the recorded answer."""
    units: list[str]
    """What the search could change, in order (unit or difference ids)."""
    found: list[str] | None
    attempts: list[Attempt]
    requests: int
    input_tokens: int
    output_tokens: int
    exhausted: bool = False
    all_changed: Attempt | None = None
    """Two recordings: the attempt with every difference applied (BAD's request, near enough)."""


@dataclass
class Probe:
    """Asks one body `repeat` times, with a request budget shared across the search."""

    send: Send
    predicate: Predicate
    repeat: int
    budget: int
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def ask(self, body: dict[str, Any]) -> tuple[list[bool], list[str], list[str]]:
        holds: list[bool] = []
        errors: list[str] = []
        gists: list[str] = []
        for _ in range(self.repeat):
            self.requests += 1
            try:
                answer = self.send(body)
            except Exception as err:  # noqa: BLE001 - any failed attempt is reported, never a flip
                errors.append(str(err).splitlines()[0] if str(err) else type(err).__name__)
                continue
            usage = answer.usage or {}
            self.input_tokens += _count(usage.get("input_tokens"))
            self.output_tokens += _count(usage.get("output_tokens"))
            holds.append(self.predicate(answer))
            gists.append(answer_gist(answer))
        return holds, errors, gists


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _majority(holds: list[bool]) -> bool | None:
    if not holds:
        return None
    yes = sum(holds)
    if yes * 2 == len(holds):
        return None  # a tie says nothing
    return yes * 2 > len(holds)


def search(
    units: list[str],
    body_for: Callable[[list[str]], dict[str, Any]],
    baseline_body: dict[str, Any],
    probe: Probe,
    *,
    recorded: Answer,
    try_all_first: bool = False,
) -> BisectOutcome:
    """ddmin over `units`; `body_for(changed)` is the request with those units changed."""
    outcome = BisectOutcome(
        predicate=probe.predicate.name,
        baseline=None,
        recorded=probe.predicate(recorded),
        units=list(units),
        found=None,
        attempts=[],
        requests=0,
        input_tokens=0,
        output_tokens=0,
    )
    holds, errors, gists = probe.ask(baseline_body)
    outcome.baseline = _majority(holds)
    outcome.attempts.append(Attempt([], holds, errors, None, gists))
    flips = _flipper(outcome, probe, body_for)

    if outcome.baseline is not None and units:
        try:
            if try_all_first:
                flipped = flips(list(units))
                outcome.all_changed = outcome.attempts[-1]
                if not flipped:
                    return _finish(outcome, probe)
            result = ddmin(units, flips)
            outcome.found = result.found
            outcome.exhausted = result.exhausted
        except _OutOfBudget:
            _out_of_budget(outcome)
    return _finish(outcome, probe)


def refine(
    outcome: BisectOutcome,
    probe: Probe,
    unit: str,
    lines: list[str],
    body_for: Callable[[list[str]], dict[str, Any]],
) -> None:
    """The second stage: which of `lines` (a found unit's own lines, e.g. of the AGENTS.md) flip the
    answer, with the rest of the found set changed as before. A line set that flips takes the unit's
    place in `outcome.found`; if none does (the fragment matters as a whole), the unit stays."""
    if outcome.found is None or unit not in outcome.found or outcome.exhausted:
        return
    flips = _flipper(outcome, probe, body_for)
    try:
        result = ddmin(lines, flips)
    except _OutOfBudget:
        outcome.exhausted = True
        return
    outcome.exhausted = result.exhausted
    if result.found:
        at = outcome.found.index(unit)
        outcome.found = [*outcome.found[:at], *result.found, *outcome.found[at + 1 :]]
        outcome.units += [line for line in lines if line not in outcome.units]
    _finish(outcome, probe)


def _flipper(
    outcome: BisectOutcome, probe: Probe, body_for: Callable[[list[str]], dict[str, Any]]
) -> Callable[[list[str]], bool | None]:
    """ddmin's test: does changing these units flip the predicate against the live baseline?"""

    def flips(changed: list[str]) -> bool | None:
        if probe.requests + probe.repeat > probe.budget:
            raise _OutOfBudget
        holds, errors, gists = probe.ask(body_for(changed))
        verdict = _majority(holds)
        flipped = None if verdict is None or outcome.baseline is None else verdict != outcome.baseline
        outcome.attempts.append(Attempt(list(changed), holds, errors, flipped, gists))
        return flipped

    return flips


def _out_of_budget(outcome: BisectOutcome) -> None:
    outcome.exhausted = True
    flipping = [a for a in outcome.attempts if a.verdict]
    if flipping:
        outcome.found = min(flipping, key=lambda a: len(a.changed)).changed


class _OutOfBudget(Exception):
    pass


def _finish(outcome: BisectOutcome, probe: Probe) -> BisectOutcome:
    outcome.requests = probe.requests
    outcome.input_tokens = probe.input_tokens
    outcome.output_tokens = probe.output_tokens
    return outcome

"""`ctxscope bisect`: which part of a recorded turn's context flipped the model's answer.

    ctxscope bisect FILE --turn N --until tool:exec_command             # which removal stops the call
    ctxscope bisect GOOD.jsonl BAD.jsonl --turn N --until text~'tests pass'   # which difference

The request goes through the agent's providers (`--provider`, `--base-url`, `--config`) with
capture on, as for `resend`, so every request of the search is itself recorded.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ctxscope.bisect.search import Attempt, BisectOutcome, Probe
from ctxscope.proxy.errors import ConfigError
from ctxscope.sending import (
    AuthFileOption,
    BaseUrlOption,
    CaptureOption,
    ConfigOption,
    NoCaptureOption,
    ProviderOption,
)

if TYPE_CHECKING:
    from ctxscope.inspector.analysis.units import RequestUnits

__all__ = ["BisectRun", "bisect", "register"]

DEFAULT_BUDGET = 64


@dataclass
class BisectRun:
    """The search and what its units are, for rendering."""

    outcome: BisectOutcome
    turn: int
    sources: list[str]
    labels: dict[str, str]
    """unit or difference id → what a person reads."""
    tokens: dict[str, int]
    form: str
    """`remove` (one recording) or `apply` (GOOD and BAD)."""
    target: str
    repeat: int
    budget: int
    capture: Path | None


def bisect(
    recordings: list[Path],
    turn: int,
    *,
    until: str | None,
    until_python: str | None,
    repeat: int = 1,
    budget: int = DEFAULT_BUDGET,
    provider: str | None = None,
    base_url: str | None = None,
    config_path: Path | None = None,
    auth_file: Path | None = None,
    capture: Path | None = None,
) -> BisectRun:
    """Run the search (see `ctxscope.bisect.search`) against the agent's provider."""
    from ctxscope.bisect.predicates import parse_predicate, python_predicate
    from ctxscope.bisect.search import Probe, search
    from ctxscope.inspector.analysis.answers import Answer, answer_of
    from ctxscope.inspector.analysis.units import merge_requests, request_units
    from ctxscope.sending import open_sender, recorded_request

    if len(recordings) not in (1, 2):
        raise ConfigError("give one recording (FILE) or two (GOOD BAD)")
    if (until is None) == (until_python is None):
        raise ConfigError("say what to look for: --until PREDICATE or --until-python EXPR (one of them)")
    if not 1 <= repeat <= 15:
        raise ConfigError(f"--repeat {repeat}: ask between 1 and 15 times")
    if budget < repeat:
        raise ConfigError(f"--budget {budget}: it must allow at least one set ({repeat} request(s))")
    requests = [recorded_request(r, turn, command="bisect", capture=capture, inputs=recordings) for r in recordings]
    body, recorded = requests[0].body, requests[0].answer
    predicate = (
        python_predicate(until_python) if until_python is not None else parse_predicate(str(until), recorded)
    )
    if len(recordings) == 1:
        cut = request_units(body)
        units = [u.id for u in cut.units if u.removable]
        labels = {u.id: _unit_label(u.label, u.preview) for u in cut.units}
        tokens = {u.id: u.tokens for u in cut.units}
        every = [u.id for u in cut.units]

        def body_for(changed: list[str]) -> dict[str, Any]:
            removed = set(changed)
            return cut.render([u for u in every if u not in removed])

        form = "remove"
    else:
        merge = merge_requests(body, requests[1].body)
        units = [d.id for d in merge.differences]
        if not units:
            raise ConfigError(
                f"turn {turn} sends the same context in {recordings[0]} and {recordings[1]}: "
                "nothing to bisect"
            )
        labels = {d.id: d.line() for d in merge.differences}
        by_unit = {u.id: u.tokens for u in merge.merged.units}
        tokens = {d.id: by_unit.get(d.unit, 0) for d in merge.differences}

        def body_for(changed: list[str]) -> dict[str, Any]:
            return merge.apply(changed)

        form = "apply"
    meta = {"client": "ctxscope bisect", "source": str(recordings[0]), "source_turn": turn}
    opened = open_sender(
        provider=provider,
        base_url=base_url,
        config_path=config_path,
        auth_file=auth_file,
        capture=capture,
        meta=meta,
    )
    with opened as sender:
        sent_headers = requests[0].headers

        def send(one: dict[str, Any]) -> Answer:
            from ctxscope.harness.errors import StreamError, UpstreamError

            try:
                answer = sender.send(one, sent_headers)
            except UpstreamError as err:
                # A response that ended failed or incomplete is an answer (status:failed asks about
                # it); an HTTP rejection or a broken stream is not, and raises: no verdict.
                if err.status is not None or isinstance(err, StreamError):
                    raise
                return answer_of([], status="incomplete" if "incomplete" in str(err) else "failed")
            status = str(answer.get("status") or "completed")
            return answer_of(answer.get("output"), status=status, usage=answer.get("usage"))

        probe = Probe(send, predicate, repeat, budget)
        outcome = search(
            units,
            body_for,
            body if form == "remove" else merge.apply([]),
            probe,
            recorded=recorded,
            try_all_first=form == "apply",
        )
        if form == "remove":
            _refine_lines(outcome, probe, cut, labels, tokens)
        return BisectRun(
            outcome,
            turn,
            [str(r) for r in recordings],
            labels,
            tokens,
            form,
            sender.target,
            repeat,
            budget,
            sender.capture,
        )


def _refine_lines(
    outcome: BisectOutcome, probe: Probe, cut: RequestUnits, labels: dict[str, str], tokens: dict[str, int]
) -> None:
    """Each found fragment with lines of its own (`RequestUnits.lines`) searched line by line
    (`search.refine`), the other found units still removed; its lines get ids `UNIT@N` (N the line
    number in the fragment's text), labels and token counts."""
    from ctxscope.bisect.search import refine
    from ctxscope.inspector.analysis.tokens import count_text

    every = [u.id for u in cut.units]
    for found in list(outcome.found or []):
        lines = cut.lines(found)
        if not lines:
            continue
        label = cut.unit(found).label
        index_of = {f"{found}@{index + 1}": index for index, _ in lines}
        for (index, text), line_id in zip(lines, index_of, strict=True):
            labels[line_id] = f"{label} line {index + 1}: {json.dumps(text.strip(), ensure_ascii=False)}"
            tokens[line_id] = count_text(text)
        others = set(outcome.found or []) - {found}

        def body(
            changed: list[str], found: str = found, others: set[str] = others, index_of: dict[str, int] = index_of
        ) -> dict[str, Any]:
            keep = [u for u in every if u not in others]
            return cut.render(keep, without_lines={found: [index_of[c] for c in changed]})

        refine(outcome, probe, found, list(index_of), body)


def _unit_label(label: str, preview: str) -> str:
    return f"{label} {json.dumps(preview, ensure_ascii=False)}" if preview and preview not in label else label


def _verdict_word(value: bool | None) -> str:
    return "holds" if value else "does not hold" if value is not None else "no answer"


def render(run: BisectRun, write: Callable[[str], None]) -> None:
    """The search as text: the question, the baseline, the answer, the cost."""
    out = run.outcome
    what = "removing units of" if run.form == "remove" else "applying the second recording's differences to"
    write(f"bisect turn {run.turn}: {what} {run.sources[0]}, until {out.predicate}")
    write(f"  recorded answer: {out.predicate} {_verdict_word(out.recorded)}")
    base = out.attempts[0] if out.attempts else None
    if base is not None:
        write(
            f"  live baseline ({len(base.holds)} of {run.repeat} answered): "
            f"{out.predicate} {_verdict_word(out.baseline)}"
        )
        for error in base.errors[:3]:
            write(f"    failed: {error}")
    kinds = "differences" if run.form == "apply" else "units"
    write(f"  {len(out.units)} {kinds} could change")
    if out.baseline is None:
        write("no verdict: the unchanged request got no clear answer, so nothing can flip it")
    elif out.all_changed is not None and not out.all_changed.verdict:
        write(
            "no flip: with every difference applied the predicate still "
            f"{_verdict_word(out.baseline)}; the differences between the two turns do not explain it"
        )
    elif out.found:
        verb = "removing" if run.form == "remove" else "applying"
        noun = "unit" if len(out.found) == 1 else "units"
        if run.form == "apply":
            noun = "difference" if len(out.found) == 1 else "differences"
        after = _verdict_word(not out.baseline)
        write(f"{verb} {len(out.found)} {noun} flips it ({out.predicate} then {after}):")
        for unit in out.found:
            write(f"  - {run.labels.get(unit, unit)}  ({run.tokens.get(unit, 0):,} tokens)")
    else:
        write("no flip found: no set of changes tried flips the predicate")
    if out.exhausted:
        write(f"  the budget of {run.budget} requests ran out before the search ended")
    rejected = sum(1 for a in out.attempts[1:] if a.verdict is None)
    if rejected:
        write(f"  {rejected} edited request(s) got no answer (rejected or failed): never counted as a flip")
    write(
        f"requests: {out.requests} to {run.target}; tokens spent: input {out.input_tokens:,}, "
        f"output {out.output_tokens:,}"
    )
    if run.capture is not None:
        write(f"captured: {run.capture}")


def _attempt(a: Attempt, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "changed": a.changed,
        "holds": a.holds,
        "errors": a.errors,
        "verdict": a.verdict,
        "answers": a.gists,
    }


def as_json(run: BisectRun) -> dict[str, Any]:
    out = run.outcome
    return {
        "turn": run.turn,
        "recordings": run.sources,
        "form": run.form,
        "predicate": out.predicate,
        "recorded": out.recorded,
        "baseline": out.baseline,
        "units": [
            {"id": u, "label": run.labels.get(u, u), "tokens": run.tokens.get(u, 0)} for u in out.units
        ],
        "found": (
            None
            if out.found is None
            else [{"id": u, "label": run.labels.get(u, u), "tokens": run.tokens.get(u, 0)} for u in out.found]
        ),
        "exhausted": out.exhausted,
        "requests": out.requests,
        "budget": run.budget,
        "repeat": run.repeat,
        "input_tokens": out.input_tokens,
        "output_tokens": out.output_tokens,
        "attempts": [_attempt(a, run.labels) for a in out.attempts],
        "target": run.target,
        "capture": str(run.capture) if run.capture else None,
    }


def bisect_command(
    files: Annotated[
        list[Path], typer.Argument(help="A recording (FILE), or two (GOOD BAD) to bisect their differences.")
    ],
    turn: Annotated[int, typer.Option("--turn", "-t", help="The turn whose request is searched (1-based).")],
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            help="tool:NAME, text~REGEX, status:failed, same-as-recorded or differs-from-recorded.",
        ),
    ] = None,
    until_python: Annotated[
        str | None,
        typer.Option("--until-python", help="A Python expression over output, text, calls, status, usage."),
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", "-n", help="Ask each request this many times (1-15).")
    ] = 1,
    budget: Annotated[
        int, typer.Option("--budget", help="At most this many requests in all.")
    ] = DEFAULT_BUDGET,
    provider: ProviderOption = None,
    base_url: BaseUrlOption = None,
    config: ConfigOption = None,
    auth_file: AuthFileOption = None,
    capture: CaptureOption = None,
    no_capture: NoCaptureOption = False,
    output_format: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Find the smallest change to a turn's context that flips the model's answer (delta debugging)."""
    from ctxscope.sending import capture_target

    if output_format not in ("text", "json"):
        raise ConfigError(f"--format {output_format!r}: use text or json")
    where = capture_target(capture, no_capture, "bisect")
    run = bisect(
        files,
        turn,
        until=until,
        until_python=until_python,
        repeat=repeat,
        budget=budget,
        provider=provider,
        base_url=base_url,
        config_path=config,
        auth_file=auth_file,
        capture=where,
    )
    if output_format == "json":
        sys.stdout.write(json.dumps(as_json(run), indent=2, ensure_ascii=False) + "\n")
    else:
        render(run, print)
    if run.outcome.baseline is None:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("bisect")(bisect_command)

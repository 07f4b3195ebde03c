"""`ctxscope resend`: send one recorded request again, as it was or edited, and set the answers side by side.

Why the model did something is a question about the context it saw. The most direct test is to
change one thing in exactly that context (drop an item, edit AGENTS.md's text, raise the reasoning
effort, switch the model) and ask again. This command takes turn N's request body from a recording,
applies the edits, sends it to a backend through the harness's providers (so the API key or ChatGPT
login is the agent's), and prints what changed in the request and how each new answer compares with
the recorded one. Models are not deterministic: `--repeat K` asks K times, so a difference that
comes back every time can be told from noise.

A recording is redacted, so a secret the client sent is a `<redacted:…>` placeholder here and is
sent as such; the command says how many there are. Capture is on, as for the agent: the new
exchanges go to a recording of their own (`--no-capture` to skip).
"""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.files import input_stat
from ctxscope.sending import (
    AuthFileOption,
    BaseUrlOption,
    CaptureOption,
    ConfigOption,
    NoCaptureOption,
    ProviderOption,
)

if TYPE_CHECKING:  # the analysis loads when a resend runs, not when the CLI builds its table
    from ctxscope.inspector.analysis.answers import Answer

__all__ = ["ResendResult", "register", "resend"]


@dataclass
class ResendResult:
    turn: int
    target: str
    """Where the request went (the provider's base URL)."""
    original: dict[str, Any]
    sent: dict[str, Any]
    edits: list[str]
    """The request edits as context-diff lines (empty: the request went as recorded)."""
    recorded: Answer
    """The recorded answer (its steps, status and usage)."""
    answers: list[Answer] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """One line per attempt that failed (HTTP error, failed response, broken stream)."""
    placeholders: int = 0
    capture: Path | None = None
    rebuilt: int = 0
    """Items of a `previous_response_id` chain sent in the body itself (0: the turn had no chain)."""


_MAX_BODY = 256 * 1024 * 1024  # far above any real request body (they run to a few MB)


def _load_body(path: Path) -> dict[str, Any]:
    info = input_stat(path)
    if info is None:
        raise ConfigError(f"cannot read --body {path}: no such file")
    if not stat.S_ISREG(info.st_mode):  # /dev/zero, a FIFO: a read that never ends
        raise ConfigError(f"--body {path} is not a regular file; give a JSON file")
    if info.st_size > _MAX_BODY:
        raise ConfigError(f"--body {path} is {info.st_size:,} bytes; a request body is far smaller")
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(f"cannot read --body {path}: {err.strerror or err}") from None
    except ValueError as err:
        raise ConfigError(
            f"--body {path} is not JSON ({err}); give a request body as a JSON object"
        ) from None
    if not isinstance(value, dict):
        raise ConfigError(f"--body {path} holds a JSON {type(value).__name__}, not a request body object")
    return value


def resend(
    recording: Path,
    turn: int,
    *,
    sets: list[str] | None = None,
    deletes: list[str] | None = None,
    model: str | None = None,
    body_file: Path | None = None,
    provider: str | None = None,
    base_url: str | None = None,
    config_path: Path | None = None,
    auth_file: Path | None = None,
    capture: Path | None = None,
    repeat: int = 1,
) -> ResendResult:
    """Send turn `turn` of `recording` (edited) `repeat` times; capture into `capture` (None: none)."""
    from ctxscope.harness.errors import UpstreamError
    from ctxscope.inspector.analysis.answers import answer_of
    from ctxscope.inspector.analysis.request_diff import diff_requests
    from ctxscope.inspector.reports.context_diff import context_diff_lines
    from ctxscope.request_edits import apply_edits
    from ctxscope.sending import open_sender, recorded_request

    if not 1 <= repeat <= 20:
        raise ConfigError(f"--repeat {repeat}: ask between 1 and 20 times")
    inputs = [body_file] if body_file is not None else []
    request = recorded_request(recording, turn, command="resend", capture=capture, inputs=inputs)
    original = request.body
    base = _load_body(body_file) if body_file is not None else original
    sent = apply_edits(base, sets=sets or (), deletes=deletes or (), model=model)
    sent["stream"] = True  # the answer is read as a stream, as every Codex-style client does
    diff = diff_requests(original, sent, normalise=False)  # one body and its edit: paths are real
    result = ResendResult(
        turn=turn,
        target="",
        original=original,
        sent=sent,
        edits=[] if diff.same else context_diff_lines(diff),
        recorded=request.answer,  # the turn's answer, as every view shows it
        placeholders=json.dumps(sent, ensure_ascii=False).count("<redacted:"),
        rebuilt=request.rebuilt,
    )
    meta = {"client": "ctxscope resend", "source": str(recording), "source_turn": turn}
    opened = open_sender(
        provider=provider,
        base_url=base_url,
        config_path=config_path,
        auth_file=auth_file,
        capture=capture,
        meta=meta,
    )
    with opened as sender:
        result.target = sender.target
        result.capture = sender.capture
        for _ in range(repeat):
            try:
                answer = sender.send(sent, request.headers)
            except UpstreamError as err:
                result.errors.append(str(err))
                continue
            result.answers.append(
                answer_of(
                    answer.get("output"),
                    status=answer.get("status") or "completed",
                    usage=answer.get("usage"),
                )
            )
    return result


def render(result: ResendResult, write: Callable[[str], None]) -> None:
    """The result as text: what was sent, then the recorded answer and each new one."""
    write(f"turn {result.turn} sent {len(result.answers) + len(result.errors)} time(s) to {result.target}")
    if result.placeholders:
        write(
            f"  note: the request holds {result.placeholders} redacted value(s), sent as placeholders "
            "(<redacted:…>): the model sees those, not the original secrets"
        )
    if result.rebuilt:
        write(
            f"  note: the turn continued a previous_response_id chain; its {result.rebuilt} earlier item(s) "
            "are sent in the body instead (the backend need not hold the recorded response)"
        )
    if result.edits:
        write("request changed from the recording:")
        for line in result.edits:
            write(f"  {line}")
    else:
        write("request as recorded")
    write(f"recorded answer ({result.recorded.status}; {result.recorded.usage_line()}):")
    for step in result.recorded.steps:
        write(f"  {step.line()}")
    for number, answer in enumerate(result.answers, 1):
        verdict = "same steps" if answer.shape == result.recorded.shape else "different steps"
        write(f"answer {number} ({answer.status}; {answer.usage_line()}): {verdict}")
        for step in answer.steps:
            write(f"  {step.line()}")
    for error in result.errors:
        write(f"failed: {error}")
    if result.answers and len(result.answers) > 1:
        same = sum(a.shape == result.recorded.shape for a in result.answers)
        write(f"{same} of {len(result.answers)} answers take the recorded steps")
    if result.capture is not None:
        write(f"captured: {result.capture}")


def _json(result: ResendResult) -> dict[str, Any]:
    def answer(a: Answer) -> dict[str, Any]:
        return {
            "status": a.status,
            "usage": a.usage,
            "steps": [{"kind": s.kind, "gist": s.gist} for s in a.steps],
        }

    return {
        "turn": result.turn,
        "target": result.target,
        "edits": result.edits,
        "placeholders": result.placeholders,
        "rebuilt": result.rebuilt,
        "sent": result.sent,
        "recorded": answer(result.recorded),
        "answers": [answer(a) for a in result.answers],
        "errors": result.errors,
        "capture": str(result.capture) if result.capture else None,
    }


def resend_command(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    turn: Annotated[
        int, typer.Option("--turn", "-t", help="The turn whose request is sent again (1-based).")
    ],
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set", help="PATH=JSON: change a value first (reasoning.effort='\"high\"'); repeatable."
        ),
    ] = None,
    delete: Annotated[
        list[str] | None,
        typer.Option("--delete", help="PATH: remove it first (input[3], tools[*]); repeatable."),
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Send to this model instead.")] = None,
    body: Annotated[
        Path | None,
        typer.Option("--body", help="Send this JSON body instead (e.g. `show --raw` output, edited)."),
    ] = None,
    repeat: Annotated[int, typer.Option("--repeat", "-n", help="Ask this many times (1-20).")] = 1,
    provider: ProviderOption = None,
    base_url: BaseUrlOption = None,
    config: ConfigOption = None,
    auth_file: AuthFileOption = None,
    capture: CaptureOption = None,
    no_capture: NoCaptureOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object instead of text.")] = False,
) -> None:
    """Send a recorded request again (edited with --set/--delete/--model/--body) and compare the answers."""
    from ctxscope.sending import capture_target

    where = capture_target(capture, no_capture, "resend")
    result = resend(
        file,
        turn,
        sets=set_,
        deletes=delete,
        model=model,
        body_file=body,
        provider=provider,
        base_url=base_url,
        config_path=config,
        auth_file=auth_file,
        capture=where,
        repeat=repeat,
    )
    if as_json:
        sys.stdout.write(json.dumps(_json(result), indent=2, ensure_ascii=False) + "\n")
    else:
        render(result, print)
    if not result.answers:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("resend")(resend_command)

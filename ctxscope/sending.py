"""Sending recorded (or edited) request bodies again through the agent's providers, with capture on.

`ctxscope resend` and `ctxscope bisect` both take a request from a recording and ask a backend
again: through the harness's providers (so the API key or ChatGPT login is the agent's, or a
`--base-url`), behind the recording proxy (so every request sent is itself recorded), with the
recorded Codex-style headers that are worth sending again.

`recorded_request` is the one place that turns a recorded turn into the request to send again, for
both commands: the body as the turn's context (a `previous_response_id` chain rebuilt in, since the
backend asked now need not hold the recorded response; a WebSocket frame's `type` dropped), the
headers worth sending, the recorded answer, and the guard that never captures into an input file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.files import refuse_same_file

if TYPE_CHECKING:  # the analysis loads when a command sends, not when the CLI builds its table
    from ctxscope.inspector.analysis.answers import Answer
    from ctxscope.inspector.analysis.turns import Turn

__all__ = [
    "AuthFileOption",
    "BaseUrlOption",
    "CaptureOption",
    "ConfigOption",
    "NoCaptureOption",
    "ProviderOption",
    "RecordedRequest",
    "Sender",
    "body_to_send",
    "capture_target",
    "open_sender",
    "recorded_request",
    "resend_headers",
]

# The provider options of every command that sends through the agent's providers (resend, bisect).
ProviderOption = Annotated[
    str | None, typer.Option("--provider", help="apikey | chatgpt | a \\[providers.NAME] of config.toml.")
]
BaseUrlOption = Annotated[
    str | None, typer.Option("--base-url", help="Send here instead of the provider's URL.")
]
ConfigOption = Annotated[Path | None, typer.Option("--config", help="The agent's config.toml to use.")]
AuthFileOption = Annotated[
    Path | None, typer.Option("--auth-file", help="ChatGPT auth.json (--provider chatgpt).")
]
# Capture is on, as for the agent: what is sent goes to a recording of its own.
CaptureOption = Annotated[Path | None, typer.Option("--capture", help="Record the requests sent here.")]
NoCaptureOption = Annotated[bool, typer.Option("--no-capture", help="Do not record them.")]


def capture_target(capture: Path | None, no_capture: bool, name: str) -> Path | None:
    """Where the requests sent are recorded: `--capture`, a new recording named after the command in
    the ctxscope home, or nowhere (`--no-capture`)."""
    from ctxscope.proxy.home import new_recording_path

    return None if no_capture else (capture or new_recording_path(name))


def body_to_send(turn: Turn) -> dict[str, Any]:
    """The body that asks for `turn` again: its context whole. A `previous_response_id` chain the
    recording resolves is rebuilt in (the full input, the id dropped: the backend asked now need not
    hold the recorded response); a WebSocket frame's `type` is dropped (it goes out as HTTP)."""
    body = {k: v for k, v in turn.body.items() if not (turn.transport == "websocket" and k == "type")}
    if turn.previous_response_id and turn.chain_resolved:
        body.pop("previous_response_id", None)
        body["input"] = list(turn.raw_input)
    return body


@dataclass(frozen=True)
class RecordedRequest:
    """A recorded turn made ready to send again (`recorded_request`)."""

    turn: int
    body: dict[str, Any]
    """What goes out (`body_to_send`)."""
    headers: dict[str, str]
    """The recorded headers worth sending again (`resend_headers`)."""
    answer: Answer
    """The answer the recorded turn got, as every view shows it."""
    rebuilt: int = 0
    """Items a `previous_response_id` chain held that the body now carries itself (0: no chain)."""


def recorded_request(
    recording: Path, turn: int, *, command: str, capture: Path | None, inputs: list[Path] | None = None
) -> RecordedRequest:
    """Turn `turn` of `recording` as the request `command` sends again; refuses (one line) a capture
    into any input (appending exchanges to it would change it) and a turn that is not a `/responses`
    request."""
    from ctxscope.inspector.analysis.analyse import analyse_recording

    if capture is not None:
        refuse_same_file(capture, [recording, *(inputs or [])])
    analysed = analyse_recording(recording).turn(turn)
    chosen = analysed.turn
    if chosen.endpoint != "responses":
        raise ConfigError(
            f"turn {turn} of {recording} is a {chosen.endpoint} request (remote compaction); "
            f"{command} sends /responses turns"
        )
    body = body_to_send(chosen)
    sent = chosen.body.get("input")
    rebuilt = len(body["input"]) - len(sent) if body.get("input") is not sent and isinstance(sent, list) else 0
    return RecordedRequest(turn, body, resend_headers(chosen.exchange.request_headers), analysed.answer, rebuilt)

_DROPPED_HEADERS = frozenset(
    {
        "authorization",
        "cookie",
        "host",
        "content-length",
        "content-type",
        "content-encoding",
        "accept-encoding",
        "connection",
        "transfer-encoding",
        "user-agent",
        "proxy-authorization",
    }
)
"""Recorded headers not sent again: credentials come from the provider, framing from the client."""


def resend_headers(recorded: dict[str, str]) -> dict[str, str]:
    """The recorded request headers worth sending again (session ids, Codex's metadata, betas)."""
    return {
        k: v
        for k, v in recorded.items()
        if k.lower() not in _DROPPED_HEADERS and "<redacted:" not in v and not k.startswith(":")
    }


@dataclass
class Sender:
    """An open route to a backend: `send` streams one request and returns the final response."""

    target: str
    """Where requests go (the provider's base URL)."""
    capture: Path | None
    _client: Any

    def send(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """The response (`output`, `status`, `usage`, …) as JSON; raises `UpstreamError` on failure."""
        from ctxscope.harness.request import TurnRequest

        sent = dict(body)
        sent["stream"] = True  # the answer is read as a stream, as every Codex-style client does
        response = self._client.stream(TurnRequest(body=sent, headers=headers)).response
        return dict(response.model_dump(mode="json", exclude_none=True))


@contextmanager
def open_sender(
    *,
    provider: str | None,
    base_url: str | None,
    config_path: Path | None,
    auth_file: Path | None,
    capture: Path | None,
    meta: dict[str, Any],
) -> Iterator[Sender]:
    """A `Sender` through the agent's provider (config.toml, `--provider`, `--base-url`)."""
    from ctxscope.harness.client import ResponsesClient
    from ctxscope.harness.config import load_config
    from ctxscope.harness.providers import make_provider
    from ctxscope.harness.route import open_route

    config = load_config(config_path).with_overrides(provider=provider, base_url=base_url)
    backend = make_provider(config, auth_file=auth_file)
    backend.check()
    route = open_route(backend, capture, meta=meta)
    try:
        with ResponsesClient(backend, base_url=route.base_url, retry=config.retry) as client:
            yield Sender(backend.base_url, route.capture_path, client)
    finally:
        route.close()

"""Sending recorded (or edited) request bodies again through the agent's providers, with capture on.

`ctxscope resend` and `ctxscope bisect` both take a request from a recording and ask a backend
again: through the harness's providers (so the API key or ChatGPT login is the agent's, or a
`--base-url`), behind the recording proxy (so every request sent is itself recorded), with the
recorded Codex-style headers that are worth sending again.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = [
    "AuthFileOption",
    "BaseUrlOption",
    "ConfigOption",
    "ProviderOption",
    "Sender",
    "open_sender",
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

"""Classify a request into an `EndpointKind` (responses, responses/compact, models, websocket, other).

Only the path decides (the host varies: api.openai.com/v1, chatgpt.com/backend-api/codex, a local
server), plus the `Upgrade: websocket` header for the WebSocket transport.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from proxy.model import EndpointKind

__all__ = ["classify_endpoint"]


def classify_endpoint(url_or_path: str, headers: Mapping[str, str] | None = None) -> EndpointKind:
    """The endpoint kind of a request to `url_or_path` (a full URL or just the path, query allowed)."""
    if headers is not None:
        upgrade = next((v for k, v in headers.items() if k.lower() == "upgrade"), "")
        if upgrade.lower() == "websocket":
            return "websocket"
    path = urlsplit(url_or_path).path if "://" in url_or_path else url_or_path.split("?", 1)[0]
    segments = [s for s in path.split("/") if s]
    if not segments:
        return "other"
    if segments[-1] == "responses":
        return "responses"
    if segments[-2:] == ["responses", "compact"]:
        return "responses/compact"
    if segments[-1] == "models" or (len(segments) >= 2 and segments[-2] == "models"):
        return "models"
    return "other"

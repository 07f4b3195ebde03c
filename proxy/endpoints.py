"""Classify a request into an `EndpointKind` (responses, responses/compact, models, websocket, other).

Only the path decides (the host varies: api.openai.com/v1, chatgpt.com/backend-api/codex, a local
server), plus the `Upgrade: websocket` header for the WebSocket transport.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.model import EndpointKind

__all__ = ["classify_endpoint", "client_base_url", "split_upstream"]


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


def client_base_url(proxy_url: str, upstream_prefix: str) -> str:
    """The base URL a Responses client should be given for a proxy in front of an upstream.

    A reverse proxy prepends the upstream's path prefix to what clients send. With none
    (`https://api.openai.com`) clients use the usual `/v1` base; with one (`…/backend-api/codex`,
    `…/v1`) the proxy's own URL is the base, so `{base}/responses` reaches `{upstream}/responses`.
    """
    base = proxy_url.rstrip("/")
    return base if upstream_prefix.strip("/") else f"{base}/v1"


def split_upstream(upstream: str) -> tuple[str, str]:
    """`https://host:port/prefix/` → (`https://host:port`, `/prefix`); raise ConfigError if unusable."""
    parts = urlsplit(upstream if "://" in upstream else f"https://{upstream}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"bad --upstream {upstream!r}: give a URL like https://api.openai.com")
    if "@" in parts.netloc:  # mitmproxy's reverse mode fails on it with only "Unhandled error in task"
        raise ConfigError("bad --upstream: a user or password in the URL is not supported; leave it out")
    origin = f"{parts.scheme}://{parts.netloc}"
    return origin, parts.path.rstrip("/")

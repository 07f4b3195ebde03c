"""A Responses-compatible endpoint described in config: base URL, key env var, extra headers.

[providers.local]
base_url = "http://127.0.0.1:8000/v1"
env_key = "LOCAL_KEY"          # optional; no Authorization header when absent
headers = { "X-Team" = "a" }
"""

from __future__ import annotations

from typing import Any

from ctxscope.harness.providers.apikey import ApiKeyProvider
from ctxscope.proxy.errors import ConfigError

__all__ = ["custom_provider"]


def custom_provider(name: str, spec: dict[str, Any], base_url: str | None = None) -> ApiKeyProvider:
    """Build a provider from its `[providers.NAME]` table (`base_url` overrides the table's)."""
    url = base_url or spec.get("base_url")
    if not url or not isinstance(url, str):
        raise ConfigError(
            f"provider {name!r} has no base_url: set [providers.{name}] base_url in config.toml"
        )
    headers = spec.get("headers") or {}
    if not isinstance(headers, dict):
        raise ConfigError(f"[providers.{name}] headers must be a table of strings")
    env_key = spec.get("env_key")
    return ApiKeyProvider(
        name=name,
        base_url=url.rstrip("/"),
        extra_headers={str(k): str(v) for k, v in headers.items()},
        env_key=str(env_key) if env_key else "",
        required=bool(env_key),
    )

"""Model backends: API key, ChatGPT OAuth, custom endpoints from config, offline scripts.

`make_provider(config)` picks one by name (`apikey`, `chatgpt`, `script`, or a `[providers.NAME]`
table of config.toml).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from ctxscope.harness.config import HarnessConfig
from ctxscope.harness.providers.apikey import OPENAI_BASE_URL, ApiKeyProvider, apikey_provider
from ctxscope.harness.providers.base import Provider
from ctxscope.harness.providers.chatgpt import CHATGPT_BASE_URL, ChatGptProvider, chatgpt_provider, jwt_expiry
from ctxscope.harness.providers.custom import custom_provider
from ctxscope.harness.providers.script import ScriptProvider, script_provider
from ctxscope.proxy.errors import ConfigError

__all__ = [
    "CHATGPT_BASE_URL",
    "OPENAI_BASE_URL",
    "ApiKeyProvider",
    "ChatGptProvider",
    "Provider",
    "ScriptProvider",
    "jwt_expiry",
    "make_provider",
]

BUILTIN = ("apikey", "chatgpt", "script")


def make_provider(config: HarnessConfig, *, auth_file: Path | None = None) -> Provider:
    """The provider `config.provider` names; `config.base_url` overrides its URL."""
    provider = _named_provider(config, auth_file)
    _check_base_url(provider.base_url)
    return provider


def _check_base_url(url: str) -> None:
    # A URL without scheme or host would only fail deep inside httpx (or the capture proxy) with a
    # traceback; say so here, before anything starts.
    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        ok = False
    if not ok:
        raise ConfigError(
            f"base URL {url!r} is not an http(s) URL: give one like https://api.openai.com/v1 "
            "(--base-url, or base_url in config.toml)"
        )


def _named_provider(config: HarnessConfig, auth_file: Path | None) -> Provider:
    name = config.provider
    if name == "apikey":
        return apikey_provider(config.base_url)
    if name == "chatgpt":
        spec = config.chatgpt
        return chatgpt_provider(config.base_url, auth_file or spec.auth_file, spec.token_url, spec.client_id)
    if name == "script":
        return script_provider(config.script)
    if name in config.providers:
        return custom_provider(name, config.providers[name].model_dump(exclude_none=True), config.base_url)
    choices = ", ".join([*BUILTIN, *config.providers])
    raise ConfigError(
        f"unknown provider {name!r}: use one of {choices} (custom ones go in [providers.NAME] of config.toml)"
    )

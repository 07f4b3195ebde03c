"""The OpenAI API-key provider: `Authorization: Bearer $OPENAI_API_KEY` to api.openai.com/v1."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from ctxscope.harness.providers.base import Provider
from ctxscope.proxy.errors import ConfigError

__all__ = ["ApiKeyProvider", "OPENAI_BASE_URL"]

OPENAI_BASE_URL = "https://api.openai.com/v1"


@dataclass
class ApiKeyProvider(Provider):
    """Reads the key from an environment variable each time (never stored anywhere)."""

    env_key: str = "OPENAI_API_KEY"
    required: bool = True

    def auth_headers(self) -> dict[str, str]:
        key = os.environ.get(self.env_key, "").strip()
        if not key:
            if not self.required:
                return {}
            raise ConfigError(
                f"{self.env_key} is not set: export {self.env_key}=<your key> "
                f"(or choose another backend with --provider)"
            )
        headers = {"Authorization": f"Bearer {key}"}
        # OpenAI's optional org/project routing, sent only by the built-in API-key provider.
        if self.env_key == "OPENAI_API_KEY":
            for env, header in (
                ("OPENAI_ORGANIZATION", "OpenAI-Organization"),
                ("OPENAI_PROJECT", "OpenAI-Project"),
            ):
                if os.environ.get(env):
                    headers[header] = os.environ[env]
        return headers

    def auth_hint(self) -> str:
        if not self.env_key:
            return f"provider {self.name!r} sends no key; set env_key in its [providers.{self.name}] table"
        return f"check that {self.env_key} holds a valid, active key"


def apikey_provider(base_url: str | None = None) -> ApiKeyProvider:
    """The API-key provider; toward a loopback `base_url` (a local server, a replay) the key is sent
    when set but not demanded: such servers mostly need none, and a missing one is their 401 to say."""
    url = base_url or OPENAI_BASE_URL
    return ApiKeyProvider(name="apikey", base_url=url, required=not _is_loopback(url))


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

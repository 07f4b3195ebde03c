"""What a model backend is to the harness: a base URL, auth headers, and a way to recover from 401.

Every provider goes through the same request builder and client; the differences between backends
(API key vs ChatGPT OAuth vs a custom endpoint vs an offline script) live only here, as in Codex.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

__all__ = ["Provider", "credential_values"]

_SCHEMES = ("Bearer ", "Basic ", "Token ")


def credential_values(values: list[str]) -> list[str]:
    """Header values reduced to the credentials in them (`Bearer X` -> `X`), empty ones dropped."""
    out: list[str] = []
    for value in values:
        value = value.strip()
        for scheme in _SCHEMES:
            if value[: len(scheme)].lower() == scheme.lower():
                value = value[len(scheme) :].strip()
        if value and value not in out:
            out.append(value)
    return out


@dataclass
class Provider:
    """A Responses-compatible backend.

    Subclasses override `auth_headers` (credentials, read lazily so a missing key fails with a
    clear message only when a request is about to go out) and `refresh` (401 recovery).
    """

    name: str
    base_url: str
    """E.g. `https://api.openai.com/v1`; requests go to `{base_url}/responses`."""
    extra_headers: dict[str, str] = field(default_factory=dict)

    def auth_headers(self) -> dict[str, str]:
        """Headers carrying credentials (never logged, never written to a session)."""
        return {}

    def headers(self) -> dict[str, str]:
        """All provider headers for one request: extras, then credentials."""
        return {**self.extra_headers, **self.auth_headers()}

    def held_credentials(self) -> list[str]:
        """The credential values this provider holds (keys, tokens, configured header values), as
        sent: what a session file must never hold. Never raises (a missing key is simply absent)."""
        values = list(self.extra_headers.values())
        try:
            values += self.auth_headers().values()
        except Exception:  # noqa: BLE001 - missing or unreadable credentials: nothing held
            pass
        return credential_values(values)

    def check(self) -> None:
        """Fail early (ConfigError/AuthError) if credentials are missing; default: nothing to check."""
        self.auth_headers()

    def refresh(self) -> bool:
        """Called after a 401: renew credentials; True if a retry may now succeed."""
        return False

    @property
    def origin(self) -> str:
        """`scheme://host[:port]` of `base_url`: where a capture proxy in reverse mode points."""
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def path_prefix(self) -> str:
        """The path part of `base_url` (`/v1`), kept when requests are routed through a proxy."""
        return urlsplit(self.base_url).path.rstrip("/")

    def auth_hint(self) -> str:
        """What a person should check when the backend answers 401."""
        return "check the credentials configured for this provider"

    def describe(self) -> str:
        return f"{self.name} ({self.base_url})"

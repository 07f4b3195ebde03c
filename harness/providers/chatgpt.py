"""The ChatGPT OAuth provider: a Codex-compatible `auth.json`, `ChatGPT-Account-ID`, token refresh.

`auth.json` (from `$CODEX_HOME/auth.json`, default `~/.codex/auth.json`, or a given path):

    {"tokens": {"access_token": "<JWT>", "refresh_token": "...", "account_id": "...", "id_token": "..."},
     "last_refresh": "<RFC 3339>"}

An access token whose JWT `exp` has passed (or that a 401 rejected) is refreshed with an OAuth
`refresh_token` grant at `token_url` (configurable so tests use a local server); the new tokens are
written back to the same file, as Codex does, because refresh tokens are single-use.
"""

from __future__ import annotations

import base64
import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from ctxscope.harness.errors import AuthError
from ctxscope.harness.providers.base import Provider, credential_values
from ctxscope.proxy.errors import ConfigError

__all__ = ["CHATGPT_BASE_URL", "ChatGptProvider", "TOKEN_URL", "default_auth_path", "jwt_expiry"]

CHATGPT_BASE_URL = "https://chatgpt.com/backend-api/codex"
TOKEN_URL = "https://auth.openai.com/oauth/token"
# The public OAuth client id of the Codex CLI: refresh tokens are bound to the client that got them.
CODEX_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
# Refresh a little before expiry so a long request does not outlive its token.
_SKEW_S = 60.0


def default_auth_path() -> Path:
    """`$CODEX_HOME/auth.json`, else `~/.codex/auth.json`."""
    home = os.environ.get("CODEX_HOME")
    return (Path(home).expanduser() if home else Path.home() / ".codex") / "auth.json"


def jwt_expiry(token: str) -> float | None:
    """The `exp` claim of a JWT (unverified: we only need to know when to refresh), or None."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        claims = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, json.JSONDecodeError):
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    return float(exp) if isinstance(exp, int | float) else None


@dataclass
class ChatGptProvider(Provider):
    """Bearer access token + `ChatGPT-Account-ID`, refreshed from `auth.json` when expired."""

    auth_path: Path | None = None
    token_url: str = TOKEN_URL
    client_id: str = CODEX_CLIENT_ID

    def __post_init__(self) -> None:
        self._tokens: dict[str, Any] | None = None

    @property
    def path(self) -> Path:
        return self.auth_path or default_auth_path()

    def _load(self) -> dict[str, Any]:
        path = self.path
        if not path.is_file():
            raise ConfigError(
                f"no ChatGPT login found at {path}: sign in with the Codex CLI (`codex login`), "
                "set CODEX_HOME to the directory holding auth.json, or pass --auth-file"
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ConfigError(
                f"{path} is not a readable auth.json ({e.__class__.__name__}): sign in again"
            ) from e
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, dict) or not tokens.get("access_token"):
            raise ConfigError(
                f"{path} has no tokens.access_token: sign in with ChatGPT again (`codex login`)"
            )
        return dict(data)

    def _current(self) -> dict[str, Any]:
        if self._tokens is None:
            self._tokens = self._load()["tokens"]
        exp = jwt_expiry(str(self._tokens["access_token"]))
        if exp is not None and exp - _SKEW_S <= time.time():
            self._refresh_now()
        return self._tokens

    def auth_headers(self) -> dict[str, str]:
        tokens = self._current()
        headers = {"Authorization": f"Bearer {tokens['access_token']}"}
        if tokens.get("account_id"):
            headers["ChatGPT-Account-ID"] = str(tokens["account_id"])
        return headers

    def held_credentials(self) -> list[str]:
        """Access, refresh and id tokens and the account id from auth.json (read once, never refreshed
        here: asking what to keep out of a session file must not touch the network)."""
        if self._tokens is None:
            try:
                self._tokens = self._load()["tokens"]
            except ConfigError:
                self._tokens = None
        tokens = self._tokens or {}
        names = ("access_token", "refresh_token", "id_token", "account_id")
        held = [str(tokens[k]) for k in names if tokens.get(k)]
        return credential_values(list(self.extra_headers.values()) + held)

    def auth_hint(self) -> str:
        return f"the ChatGPT login in {self.path} was refused; sign in again (`codex login`)"

    def refresh(self) -> bool:
        """After a 401: refresh once if we have a refresh token."""
        if self._tokens is None:
            self._tokens = self._load()["tokens"]
        if not self._tokens.get("refresh_token"):
            return False
        self._refresh_now()
        return True

    def _refresh_now(self) -> None:
        assert self._tokens is not None
        refresh_token = self._tokens.get("refresh_token")
        if not refresh_token:
            raise AuthError(
                f"the ChatGPT access token in {self.path} has expired and there is no refresh token: "
                "sign in again (`codex login`)"
            )
        try:
            reply = httpx.post(
                self.token_url,
                json={
                    "client_id": self.client_id,
                    "grant_type": "refresh_token",
                    "refresh_token": refresh_token,
                    "scope": "openid profile email",
                },
                timeout=30.0,
            )
        except httpx.HTTPError as e:
            raise AuthError(
                f"could not reach the token endpoint {self.token_url} to refresh the ChatGPT "
                f"login ({e.__class__.__name__}): check the network and retry"
            ) from e
        if reply.status_code != 200:
            raise AuthError(
                f"refreshing the ChatGPT login failed (HTTP {reply.status_code}): "
                "sign in again (`codex login`)"
            )
        try:
            fresh = reply.json()
        except json.JSONDecodeError as e:
            raise AuthError(
                "the token endpoint answered with something that is not JSON: sign in again"
            ) from e
        if not isinstance(fresh, dict) or not fresh.get("access_token"):
            raise AuthError("the token endpoint returned no access_token: sign in again (`codex login`)")
        for key in ("access_token", "refresh_token", "id_token"):
            if fresh.get(key):
                self._tokens[key] = fresh[key]
        self._save()

    def _save(self) -> None:
        """Write rotated tokens back (the old refresh token is now spent), owner-only."""
        data = self._load() if self.path.is_file() else {}
        data["tokens"] = {**(data.get("tokens") or {}), **(self._tokens or {})}
        data["last_refresh"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        tmp = self.path.with_suffix(".json.tmp")
        tmp.unlink(missing_ok=True)  # a leftover could carry looser permissions
        # Created owner-only: writing first and chmod-ing after leaves the tokens readable meanwhile.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(data, indent=2))
        tmp.replace(self.path)


def chatgpt_provider(
    base_url: str | None = None,
    auth_path: Path | None = None,
    token_url: str | None = None,
    client_id: str | None = None,
) -> ChatGptProvider:
    return ChatGptProvider(
        name="chatgpt",
        base_url=base_url or CHATGPT_BASE_URL,
        auth_path=auth_path,
        token_url=token_url or TOKEN_URL,
        client_id=client_id or CODEX_CLIENT_ID,
    )

"""Harness errors a person sees, all `ctxscope.proxy.errors.CtxscopeError` subclasses.

    CtxscopeError (ctxscope.proxy.errors)
    ├── ConfigError (ctxscope.proxy.errors)     bad settings, missing key or auth.json
    │   └── AuthError                  credentials present but unusable (expired, refresh failed)
    └── UpstreamError                  the model backend refused or broke the request
        └── StreamError                the SSE stream ended without `response.completed`

Callers catch `UpstreamError` separately from `ConfigError` because an upstream failure mid-turn
leaves a session that can be resumed, while a config error means nothing was sent.
"""

from __future__ import annotations

from ctxscope.proxy.errors import ConfigError, CtxscopeError

__all__ = ["AuthError", "ConfigError", "CtxscopeError", "StreamError", "UpstreamError"]


class AuthError(ConfigError):
    """Credentials were found but cannot be used (expired without a refresh token, refresh refused)."""


class UpstreamError(CtxscopeError):
    """The backend answered with an error; `code` is the API error code when there is one."""

    def __init__(
        self, message: str, *, status: int | None = None, code: str | None = None, retryable: bool = False
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.retryable = retryable


class StreamError(UpstreamError):
    """The stream dropped or closed before `response.completed`."""

"""Errors a person sees, one base class for the whole toolkit.

    CtxscopeError            the message is one line: what is wrong and what to do
    ├── RecordingError       a file that is not a recording, is torn beyond use, or is from a newer ctxscope
    │   └── RecordingWriteError   a write failed (disk full, file too large): the exchange is held for retry
    ├── ProxyStartError      the proxy could not listen (port taken, bad address)
    ├── ReplayMismatch       a live request did not match the cassette
    └── ConfigError          bad command-line values, missing keys/auth, malformed config files
        └── MissingExtra     a command needs a dependency the core install leaves out (`missing_extra`)

The CLI catches `CtxscopeError` and prints `error: <message>` with exit code 2, never a traceback.
"""

from __future__ import annotations

__all__ = [
    "EXTRAS",
    "ConfigError",
    "CtxscopeError",
    "MissingExtra",
    "ProxyStartError",
    "RecordingError",
    "RecordingWriteError",
    "ReplayMismatch",
    "missing_extra",
]

EXTRAS: dict[str, tuple[str, str]] = {
    "mitmproxy": ("proxy", "the recording proxy (capture, `ctxscope replay`, proxy cassettes)"),
    "textual": ("tui", "the inspector TUI"),
    "opentelemetry": ("otel", "OpenTelemetry export"),
}
"""Top-level module → (the extra that installs it, what needs it). The core (`pip install ctxscope`) has
none of them, so it installs beside clients whose dependencies conflict with mitmproxy's pins."""


class CtxscopeError(Exception):
    """Base of every error meant for a person; `str(err)` is the one-line message."""


class RecordingError(CtxscopeError):
    """A recording file cannot be read as asked."""


class RecordingWriteError(RecordingError):
    """Writing to a recording failed; the recorder reports it once and keeps relaying."""


class ProxyStartError(CtxscopeError):
    """The proxy could not start listening."""


class ReplayMismatch(CtxscopeError):
    """A live request differs from the recorded one it was matched against."""


class ConfigError(CtxscopeError):
    """A setting, credential file or argument is missing or malformed."""


class MissingExtra(ConfigError):
    """A feature's dependency is not installed: the message names the extra to install."""


def missing_extra(err: ImportError) -> MissingExtra | None:
    """The one-line error for `err` when it is a module an extra brings (see `EXTRAS`), else None."""
    name = (err.name or "").partition(".")[0]
    if not isinstance(err, ModuleNotFoundError) or name not in EXTRAS:
        return None
    extra, what = EXTRAS[name]
    return MissingExtra(
        f"{what} needs {name}, which the core install leaves out: pip install 'ctxscope[{extra}]'"
    )

"""Errors a person sees, one base class for the whole toolkit.

    CtxscopeError            the message is one line: what is wrong and what to do
    ├── RecordingError       a file that is not a recording, is torn beyond use, or is from a newer ctxscope
    │   └── RecordingWriteError   a write failed (disk full, file too large): the exchange is held for retry
    ├── ProxyStartError      the proxy could not listen (port taken, bad address)
    ├── ReplayMismatch       a live request did not match the cassette
    └── ConfigError          bad command-line values, missing keys/auth, malformed config files

The CLI catches `CtxscopeError` and prints `error: <message>` with exit code 2, never a traceback.
"""

from __future__ import annotations


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

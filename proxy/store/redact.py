"""The recording's redaction lives in `proxy.redact`; this name stays for existing imports."""

from __future__ import annotations

from ..redact import PLACEHOLDER_RE, Redactor

__all__ = ["PLACEHOLDER_RE", "Redactor"]

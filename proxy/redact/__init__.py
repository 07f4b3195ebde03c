"""Redaction: no credential reaches a file ctxscope writes.

names          which header names, JSON keys, query parameters and variables mark a credential
shapes         secrets recognised by shape (detect-secrets' regex detectors plus our own)
assignments    values assigned to credential names in text (`KEY=value`, `Name: value`, JSON pairs)
placeholders   `<redacted:KIND:N>` numbering per file, and binding placeholders on replay
redactor       Redactor: headers, URLs, JSON bodies, text
stream         redact_events: streamed deltas redacted as the text they assemble to
"""

from __future__ import annotations

from .names import is_secret_name
from .placeholders import PLACEHOLDER_RE, PlaceholderBinding, Placeholders
from .redactor import Redactor
from .shapes import find_secrets
from .stream import redact_events

__all__ = [
    "PLACEHOLDER_RE",
    "PlaceholderBinding",
    "Placeholders",
    "Redactor",
    "find_secrets",
    "is_secret_name",
    "redact_events",
]

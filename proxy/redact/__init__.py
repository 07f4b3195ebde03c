"""Redaction: no credential reaches a file ctxscope writes. Credentials are recognised by their structure:

names          which header names, JSON keys, query parameters and variables mark a credential (and which
               only refer to one: `secretName`, `token_ttl`)
values         whether a value is a secret, code, a placeholder or a documented example
assignments    values assigned to credential names in text, in every syntax (`KEY=value`, `Name: value`,
               JSON pairs also JSON-escaped, `{password: "…"}`, `'password' => '…'`)
contexts       URL userinfo, `.netrc`, command-line options, multipart fields
formats        `.pgpass`, one-line token files, `name`/`value` entries
code           positional arguments of well-known SDK calls (`Client(sid, token)`, `bot.run(token)`)
prose          a generated token next to a credential word
vendors        vendor key formats as a data table (with `checksums`), compiled by `shapes`
shapes         secrets recognised by shape (the table, detect-secrets' detectors, JWTs, private keys)
encoded        base64 blobs that decode to a credential
known          secrets met before, found again whole, without their prefix and in 12-character pieces
environment    the credential variables of an environment a recorder gave its command
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

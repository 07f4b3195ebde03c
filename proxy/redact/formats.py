"""Credentials known by the file format they sit in, where no name stands beside the value:

- `.pgpass` lines, `host:port:database:user:password` (`*` allowed in the first four);
- a token file of one line: in a text of several lines (a command's output), a line that is one
  generated-looking token and nothing else, with no other such line next to it (a base64 block, a
  certificate or a key list is not a token file), such as `cat ~/.config/…/token` or
  `gcloud auth print-access-token` prints; a string that is a lone token (an id, an opaque blob in
  JSON) is not one, nor a key a vendor documents as public (`vendors.PUBLIC_PREFIXES`);
- a value beside a name that marks a credential, as the many `name`/`value` formats write it: a
  Kubernetes `env` entry (`- name: DB_PASSWORD` / `value: …`), SSM parameters (`"Name": "/prod/db/password"`,
  `"Value": …`), a cloud CLI's key list (`"keyName": "key1"`, `"value": …`).

The name-based formats (`.netrc`, `.npmrc`, `.pypirc`, kubeconfig, registry `config.json`, INI and
TOML credential files) are `assignments.py` and `contexts.py`; PEM, OpenSSH, PGP and PuTTY keys and
age secret keys are shapes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .encoded import decoded_text
from .names import is_secret_name
from .values import credential_like, looks_like_placeholder
from .vendors import PUBLIC_PREFIXES

__all__ = ["find_in_formats"]

Found = tuple[int, int, str]

_PGPASS_RE = re.compile(
    r"(?m)^(?:[A-Za-z0-9._-]+|\*|\[[0-9A-Fa-f:]+\]):(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:(?P<value>\S+)[ \t]*\r?$"
)
_TOKEN_LINE_RE = re.compile(r"(?m)^[ \t]*(?P<value>[A-Za-z0-9_.~+/-]{20,256}={0,2})[ \t]*\r?$")
_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
# `name: X` (YAML), `"name": "X"`, `"Name": "X"`, `"keyName": "X"` and the `value` that follows in the
# same entry (no `name`, `-` item or `}` between)
_NAMED_RE = re.compile(
    r"(?P<nq>\"?)(?:name|Name|keyName|KeyName|key|Key|ParameterName)(?P=nq)[ \t]*:[ \t]*(?P<q>[\"']?)"
    r"(?P<name>[A-Za-z0-9_./:-]{1,200})(?P=q)"
)
_VALUE_AFTER_RE = re.compile(
    r"(?P<vq>\"?)(?:value|Value|SecretValue|SecretString)(?P=vq)[ \t]*:[ \t]*(?P<q>[\"']?)(?P<value>[^\s\"',}]+)"
)
_WINDOW = 400


_EXTENSION_RE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}\Z")  # `ReportFor2024Q3Final.pdf` is a file name


def _token_line(value: str) -> bool:
    """A generated token: upper and lower case in like measure and digits (not a CamelCase name), not a
    UUID, a file name, a path or base64 of text."""
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    digits = sum(c.isdigit() for c in value)
    if digits < 2 or upper < 0.2 * (upper + lower) or lower < 0.2 * (upper + lower):
        return False
    if _UUID_RE.search(value) or value.count("/") > 2 or _EXTENSION_RE.search(value):
        return False
    if value.startswith(PUBLIC_PREFIXES):
        return False
    if looks_like_placeholder(value):
        return False
    return decoded_text(value) is None  # base64 of readable text is data, not a token


def _token_lines(text: str) -> Iterator[Found]:
    matches = list(_TOKEN_LINE_RE.finditer(text))
    for n, match in enumerate(matches):
        # a neighbour that is also a bare run: a block (base64, a key list), not a one-line token file
        before = n > 0 and text.count("\n", matches[n - 1].end(), match.start()) <= 1
        after = n + 1 < len(matches) and text.count("\n", match.end(), matches[n + 1].start()) <= 1
        if not (before or after) and _token_line(match.group("value")):
            yield *match.span("value"), "token"


def _named_values(text: str) -> Iterator[Found]:
    for match in _NAMED_RE.finditer(text):
        name = match.group("name").rsplit("/", 1)[-1]  # an SSM path: its last part names it
        numbered_key = re.fullmatch(r"(?i)(?:key|primary|secondary)\d*", name) is not None
        if not (numbered_key or is_secret_name(name, "env")):
            continue
        window = text[match.end() : match.end() + _WINDOW]
        stop = re.search(r"[}\]]|\n[ \t]*-[ \t]|\bname\b|\bName\b|\bkeyName\b", window)
        value = _VALUE_AFTER_RE.search(window, 0, stop.start() if stop else len(window))
        if value is None:
            continue
        secret = value.group("value")
        if numbered_key and not credential_like(secret):
            continue
        if not looks_like_placeholder(secret):
            start = match.end() + value.start("value")
            yield start, start + len(secret), "secret"


def find_in_formats(text: str) -> Iterator[Found]:
    """Spans (start, end, kind) of credentials known by their file format (they may overlap)."""
    if text.count(":") >= 4 and "\n" in text or text.count(":") == 4:
        for match in _PGPASS_RE.finditer(text):
            if not looks_like_placeholder(match.group("value")):
                yield *match.span("value"), "password"
    if len(text) >= 20 and "\n" in text:  # a line among lines: a lone string is an id or a blob in JSON
        yield from _token_lines(text)
    if ("alue" in text) and ("ame" in text or "ey" in text):
        yield from _named_values(text)

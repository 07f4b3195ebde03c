"""Credentials known by the text around them: URL userinfo, `.netrc`, command-line options, form parts.

None of these values has a shape of its own (a password is any string); the place says what it is:

- `scheme://user:password@host`: the password, with any characters (`!`, `%21`, `:`), and the user
  part too when it is a token (`https://<40 hex>@github.com/…`, `https://ghp_…@…`);
- `.netrc` (`machine h login u password p`, on one line or many);
- options of common command-line tools: `curl -u user:pw` / `--user`, `mysql -pPW` (attached, as
  mysql takes it), `--password pw` / `--token pw` (the `=` form is an assignment), `sshpass -p`,
  `redis-cli -a`, `docker login -p`;
- a multipart form part whose field name marks a credential.

A value that is a placeholder or a variable (`$PASS`, `<password>`, `${TOKEN}`) stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .names import is_secret_name
from .values import is_reference, looks_like_placeholder, looks_random

__all__ = ["find_in_context"]

Found = tuple[int, int, str]

_URL_RE = re.compile(
    r"(?i)\b[a-z][a-z0-9+.-]{0,30}://(?P<user>[^\s/?#@:'\"<>()\[\]{}]+)(?::(?P<pw>[^\s/?#'\"<>]*))?@"
    r"(?=[A-Za-z0-9\[])"
)
_HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")
_NETRC_RE = re.compile(r"(?<!\S)(?:password|passwd)[ \t\r\n]+(?P<value>\S+)")
_CURL_USER_RE = re.compile(
    r"(?<![\w-])(?:-u[ \t]*|--user(?:[ \t]+|=))(?P<q>['\"]?)[^\s:'\"]+:(?P<value>[^\s'\"]+)(?P=q)"
)
_MYSQL_RE = re.compile(
    r"\b(?:mysql|mysqldump|mysqladmin|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]*?(?<!\S)-p"
    r"(?P<value>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)"
)
_SHORT_OPTION_RE = re.compile(
    r"\b(?:sshpass[^\n|;&]*?(?<!\S)-p|redis-cli[^\n|;&]*?(?<!\S)-a|(?:docker|podman|helm registry) login"
    r"[^\n|;&]*?(?<!\S)-p)[ \t]+(?P<value>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)"
)
_LONG_OPTION_RE = re.compile(
    r"(?<!\S)--(?P<name>[A-Za-z][A-Za-z0-9-]{2,40})[ \t]+(?P<value>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"-][^\s'\"]*)"
)
_MULTIPART_RE = re.compile(
    r"(?i)content-disposition:[^\r\n]*?\bname=\"(?P<name>[^\"\r\n]+)\"[^\r\n]*\r?\n"
    r"(?:[^\r\n]+\r?\n)*\r?\n(?P<value>[^\r\n]+)"
)


def _unquoted(text: str, start: int, end: int) -> tuple[int, int, str]:
    value = text[start:end]
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return start + 1, end - 1, value[1:-1]
    return start, end, value


def _value(match: re.Match[str], kind: str, text: str) -> Iterator[Found]:
    start, end, value = _unquoted(text, *match.span("value"))
    if value and not looks_like_placeholder(value):
        yield start, end, kind


def _urls(text: str) -> Iterator[Found]:
    for match in _URL_RE.finditer(text):
        user, password = match.group("user"), match.group("pw")
        if password and not looks_like_placeholder(password):
            yield *match.span("pw"), "password"
        if looks_random(user) or _HEX_RUN.fullmatch(user):
            yield *match.span("user"), "token"


def _options(text: str) -> Iterator[Found]:
    for pattern in (_CURL_USER_RE, _MYSQL_RE, _SHORT_OPTION_RE):
        for match in pattern.finditer(text):
            if not match.group("value").isdigit():  # `docker run -u 1000:1000` is a uid:gid
                yield from _value(match, "password", text)
    for match in _LONG_OPTION_RE.finditer(text):
        name = match.group("name")
        if not is_secret_name(name, "assignment"):
            continue
        value = match.group("value")
        quoted = value[0] in "'\""
        # `--token is required`: a bare word after a credential option is prose, not its value
        if quoted or (any(not c.isalpha() for c in value) and not is_reference(value, name, in_call=False)):
            yield from _value(match, "password" if "pass" in name.lower() else "secret", text)


def find_in_context(text: str) -> Iterator[Found]:
    """Spans (start, end, kind) of credentials known by their surroundings (they may overlap)."""
    # each rule is gated on a literal it needs, so most text costs a few substring tests
    if "://" in text and "@" in text:
        yield from _urls(text)
    if "machine" in text and ("password" in text or "passwd" in text):
        for match in _NETRC_RE.finditer(text):
            yield from _value(match, "password", text)
    if " -" in text:
        yield from _options(text)
    if "name=" in text and "ontent-" in text:
        for match in _MULTIPART_RE.finditer(text):
            if is_secret_name(match.group("name"), "assignment"):
                yield from _value(match, "password" if "pass" in match.group("name") else "secret", text)

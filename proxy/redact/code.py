"""Credentials passed to well-known SDK constructors and client calls by position, in source code.

`Client("AC…", "<auth token>")` (Twilio), `pusher.Pusher(app_id, key, "<secret>", cluster)`,
`Minio(host, "<access key>", "<secret key>")`, `bot.run("<token>")` (discord.py), `client.login("<token>")`
(discord.js), `HTTPBasicAuth(user, "<password>")`, `jwt.encode(payload, "<key>")`, `basic_auth=(user,
"<token>")`: no name stands beside these values, the call's signature says what they are. `CALLS` lists,
per callee, which positional arguments hold a credential; only string literals are taken (a variable
or a call stays), and a token position needs a credential-looking value (`values.credential_like`),
while a password position takes any literal that is not a placeholder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .values import credential_like, looks_like_placeholder

__all__ = ["CALLS", "Call", "find_in_code"]

Found = tuple[int, int, str]


@dataclass(frozen=True)
class Call:
    """The credential positions of one callee's arguments."""

    tokens: tuple[int, ...] = ()
    """Positions holding a generated credential (key, token, secret)."""
    passwords: tuple[int, ...] = ()
    """Positions holding a password (any literal)."""
    receivers: frozenset[str] = frozenset()
    """If set, only `receiver.callee(…)` with one of these receivers (`bot.run`, not `subprocess.run`)."""
    max_args: int | None = None
    """If set, only calls with at most this many arguments (`client.login(token)`, not `login(u, p)`)."""


_BOTS = frozenset({"bot", "client", "app", "discord_client", "self.bot", "self.client"})
CALLS: dict[str, Call] = {
    # messaging and chat
    "Client": Call(tokens=(1, 2)),  # Twilio (account SID, auth token); WooCommerce (url, key, secret)
    "TwilioRestClient": Call(tokens=(1,)),
    "Pusher": Call(tokens=(2,)),  # (app_id, key, secret, cluster): the key is public, the secret is not
    "run": Call(tokens=(0,), receivers=_BOTS, max_args=2),  # discord.py
    "login": Call(tokens=(0,), receivers=_BOTS, max_args=1),  # discord.js
    "TeleBot": Call(tokens=(0,)),
    "AsyncTeleBot": Call(tokens=(0,)),
    "Bot": Call(tokens=(0,)),
    "Updater": Call(tokens=(0,)),
    "WebClient": Call(tokens=(0,)),  # Slack
    "AsyncWebClient": Call(tokens=(0,)),
    "SendGridAPIClient": Call(tokens=(0,)),
    "setApiKey": Call(tokens=(0,)),
    "set_api_key": Call(tokens=(0,)),
    "setAccessToken": Call(tokens=(0,)),
    "set_access_token": Call(tokens=(0,)),
    # storage, code hosting, payments
    "Minio": Call(tokens=(1, 2)),
    "Github": Call(tokens=(0,)),
    "Gitlab": Call(tokens=(1,)),
    "Stripe": Call(tokens=(0,)),
    "StripeClient": Call(tokens=(0,)),
    "Dropbox": Call(tokens=(0,)),
    "SearchClient": Call(tokens=(1,)),  # Algolia (app id, api key)
    "algoliasearch": Call(tokens=(1,)),
    "ClientSecretCredential": Call(tokens=(2,)),  # Azure (tenant, client id, secret)
    "ServicePrincipalCredentials": Call(tokens=(1,)),
    "Fernet": Call(tokens=(0,)),
    "encode": Call(tokens=(1,), receivers=frozenset({"jwt"})),
    "decode": Call(tokens=(1,), receivers=frozenset({"jwt"})),
    "new": Call(tokens=(0,), receivers=frozenset({"hmac"})),
    # user and password
    "HTTPBasicAuth": Call(passwords=(1,)),
    "HTTPDigestAuth": Call(passwords=(1,)),
    "HTTPProxyAuth": Call(passwords=(1,)),
    "BasicAuth": Call(passwords=(1,)),
    "connect": Call(passwords=(2,)),  # pymysql / MySQLdb (host, user, password, db)
}
_CALL_RE = re.compile(r"\b(?P<name>" + "|".join(sorted(CALLS, key=len, reverse=True)) + r")[ \t]*\(")
_RECEIVER_RE = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*\.\Z")  # `self.bot.` before `run(`
# `auth=("user", "pw")`, `basic_auth=(…)`, `auth: ["user", "pw"]`: the second element is the credential
_AUTH_TUPLE_RE = re.compile(
    r"\b(?:auth|basic_auth|http_auth|credentials)[ \t]*[=:][ \t]*[(\[][ \t]*(?P<q1>['\"])[^'\"\n]*(?P=q1)[ \t]*,"
    r"[ \t]*(?P<q>['\"])(?P<value>[^'\"\n]{4,})(?P=q)[ \t]*[)\]]"
)
_LITERAL_RE = re.compile(r"\s*[bruBRUf]?(?P<q>['\"`])(?P<body>(?:(?!(?P=q))[^\\\n]|\\.)*)(?P=q)\s*\Z")
_MAX_SCAN = 4000
_OPEN, _CLOSE = "([{", ")]}"


def _arguments(text: str, start: int) -> list[tuple[int, int]]:
    """The (start, end) of each top-level argument of the call whose `(` is at `start - 1`."""
    args: list[tuple[int, int]] = []
    depth, at, arg_start = 0, start, start
    end = min(len(text), start + _MAX_SCAN)
    while at < end:
        char = text[at]
        if char in "'\"`":
            close = at + 1
            while close < end and text[close] != char and text[close] != "\n":
                close += 2 if text[close] == "\\" else 1
            at = close + 1
            continue
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            if depth == 0:
                if text[arg_start:at].strip():
                    args.append((arg_start, at))
                return args
            depth -= 1
        elif char == "," and depth == 0:
            args.append((arg_start, at))
            arg_start = at + 1
        at += 1
    return []  # unclosed within reach: not a call we can read


def _calls(text: str, present: list[str]) -> Iterator[Found]:
    for match in _CALL_RE.finditer(text):
        name = match.group("name")
        if name not in present:
            continue
        call = CALLS[name]
        before = _RECEIVER_RE.search(text, max(0, match.start() - 80), match.start())
        receiver = before.group(0)[:-1].lower() if before else ""
        if call.receivers and receiver.rsplit(".", 1)[-1] not in call.receivers and receiver not in call.receivers:
            continue
        args = _arguments(text, match.end())
        if call.max_args is not None and len(args) > call.max_args:
            continue
        for index, (start, end) in enumerate(args):
            password = index in call.passwords
            if not password and index not in call.tokens:
                continue
            literal = _LITERAL_RE.match(text, start, end)
            if literal is None:
                continue
            value = literal.group("body")
            if looks_like_placeholder(value) or not (credential_like(value) if not password else len(value) >= 4):
                continue
            yield *literal.span("body"), "password" if password else "secret"


def find_in_code(text: str) -> Iterator[Found]:
    """Spans (start, end, kind) of credentials passed by position to known calls (see the docstring)."""
    if "(" not in text:
        return
    present = [name for name in CALLS if name in text]
    if present:
        yield from _calls(text, present)
    if "auth" in text or "credentials" in text:
        for match in _AUTH_TUPLE_RE.finditer(text):
            if not looks_like_placeholder(match.group("value")):
                yield *match.span("value"), "password"

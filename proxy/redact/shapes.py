"""Secrets recognised by their shape wherever they appear in text: keys, tokens, PEM keys, URL passwords.

The shapes of vendor keys come from the regex detectors of `detect-secrets` (AWS access key ids, GitHub,
GitLab, Slack, Stripe, SendGrid, PyPI, Square, Azure storage keys, legacy OpenAI keys, passwords in
`scheme://user:password@host` URLs). Its entropy and keyword heuristics are not used: they flag hashes,
ids and base64 blobs, which a recording is full of. Shapes it lacks or matches too loosely for us are
written here: current OpenAI and Anthropic keys, Google API keys, fine-grained GitHub tokens, JWTs,
bearer tokens in text, and whole PEM private-key blocks (its detector only sees the BEGIN line).

Two guards keep false positives out:
- a match must stand alone: a key inside a longer run of base64 characters (a reasoning
  `encrypted_content` blob that happens to contain `-sk-proj-`) is part of that blob and stays;
- a shape with a free-form body (`sk-…`, bearer tokens) needs a random-looking part: a run of 20 or
  more letters and digits holding both, so `sk-button-primary`, branch and pod names stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

__all__ = ["Finding", "Shape", "find_secrets", "shapes"]

# Characters of base64 / base64url runs: a match glued to more of them is inside an opaque blob.
_BLOB_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=")
# ...except where a run is only a path or an assignment: `/v1/keys/<key>`, `KEY=<key>`.
_SEPARATORS = frozenset("/=")
_RANDOM_RUN = re.compile(r"[A-Za-z0-9]{20,}")


@dataclass(frozen=True)
class Shape:
    """One kind of secret recognisable by its shape."""

    kind: str
    """The placeholder kind (`<redacted:KIND:N>`)."""
    pattern: re.Pattern[str]
    group: int = 0
    """The group holding the secret (a URL password is group 1 of `://user:password@`)."""
    standalone: bool = True
    """Refuse matches glued to a longer base64 run."""
    valid: Callable[[str], bool] | None = None
    """An extra check of the matched secret."""


@dataclass(frozen=True)
class Finding:
    start: int
    end: int
    kind: str


def _random_looking(secret: str) -> bool:
    """A run of 20+ letters and digits with both in it: what a generated key has and a word list has not."""
    for run in _RANDOM_RUN.findall(secret):
        if any(c.isdigit() for c in run) and any(c.isalpha() for c in run):
            return True
    return False


def _detect_secrets_shapes() -> list[Shape]:
    """The regex detectors of detect-secrets that fit recordings (see the module docstring)."""
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector
    from detect_secrets.plugins.stripe import StripeDetector

    out = [Shape("aws_key", AWSKeyDetector.denylist[0])]  # the key id; [1] is a keyword heuristic
    out.append(Shape("aws_secret", AWSKeyDetector.denylist[1], group=1, standalone=False))
    for kind, detector in (
        ("github_token", GitHubTokenDetector),
        ("gitlab_token", GitLabTokenDetector),
        ("slack_token", SlackDetector),
        ("stripe_key", StripeDetector),
        ("api_key", OpenAIDetector),
        ("pypi_token", PypiTokenDetector),
        ("sendgrid_key", SendGridDetector),
        ("square_token", SquareOAuthDetector),
        ("azure_key", AzureStorageKeyDetector),
    ):
        out += [Shape(kind, pattern) for pattern in detector.denylist]
    # `://user:password@`: only the password goes; `postgres://app:<redacted:password:1>@db/x` still
    # says which database.
    out += [Shape("password", pattern, group=1, standalone=False) for pattern in BasicAuthDetector.denylist]
    return out


_OWN_SHAPES = (
    # PEM private keys, the whole block (also JSON-escaped, as in a tool output inside an SSE event),
    # or everything base64 after a BEGIN line when the END is missing.
    Shape(
        "private_key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\s:,-]|\\[nr])*)",
            re.DOTALL,
        ),
        standalone=False,
    ),
    Shape("api_key", re.compile(r"sk-ant-(?:api|admin|oat)\d\d-[A-Za-z0-9_-]{40,}")),
    Shape("api_key", re.compile(r"sk-[A-Za-z0-9_-]{20,}"), valid=_random_looking),
    Shape("google_api_key", re.compile(r"AIza[0-9A-Za-z_-]{35}")),
    Shape("github_token", re.compile(r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}")),
    Shape("github_token", re.compile(r"gh[pousr]_[A-Za-z0-9]{36,255}")),
    Shape("slack_token", re.compile(r"xox[abposre]-[A-Za-z0-9-]{10,}")),
    Shape("jwt", re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
    # A token after `Bearer` in text (a curl command, a log line); "Bearer <token>" and
    # "Bearer $OPENAI_API_KEY" in docs are not random-looking and stay.
    Shape(
        "bearer",
        re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)"),
        group=1,
        valid=_random_looking,
    ),
)

# Cheap literal pre-check: text holding none of these has no shaped secret (most text, most of the time).
# Substring tests, not one regex alternation: `in` runs at memory speed, an alternation of 20 branches
# costs ~60 ns per character of a 600 KB body.
_HINTS = (
    "sk-",
    "sk_",
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "A3T",
    "hp_",
    "ho_",
    "hu_",
    "hs_",
    "hr_",
    "github_pat_",
    "gl",
    "GR1348941",
    "xox",
    "AIza",
    "eyJ",
    "BEGIN",
    "PuTTY",
    "://",
    "earer",
    "EARER",
    "SG.",
    "pypi-",
    "sq0",
    "AccountKey",
    "aws",
)


@cache
def shapes() -> tuple[Shape, ...]:
    """Every shape, most specific first (an Anthropic key is an `sk-` key too)."""
    return (*_OWN_SHAPES[:2], *_detect_secrets_shapes(), *_OWN_SHAPES[2:])


def _standalone(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    glued_before = before in _BLOB_CHARS and before not in _SEPARATORS
    glued_after = after in _BLOB_CHARS and after not in _SEPARATORS
    return not (glued_before or glued_after)


def find_secrets(text: str) -> list[Finding]:
    """Non-overlapping secrets in `text`, in order (the first shape to claim a span wins)."""
    if not any(hint in text for hint in _HINTS):
        return []
    found: list[Finding] = []
    taken: list[tuple[int, int]] = []
    for shape in shapes():
        for match in shape.pattern.finditer(text):
            start, end = match.span(shape.group)
            if start < 0 or end <= start:
                continue
            if shape.standalone and not _standalone(text, start, end):
                continue
            if shape.valid is not None and not shape.valid(text[start:end]):
                continue
            if any(s < end and start < e for s, e in taken):
                continue
            taken.append((start, end))
            found.append(Finding(start, end, shape.kind))
    found.sort(key=lambda f: f.start)
    return found

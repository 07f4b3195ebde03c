"""Secrets recognised by their shape wherever they appear in text: keys, tokens, JWTs, PEM keys.

Vendor key formats are data (`vendors.VENDOR_FORMATS`, one row per documented format); the regex
detectors of `detect-secrets` add AWS key ids and Azure storage keys (and overlap the table elsewhere).
Its entropy and keyword heuristics are not used: they flag hashes, ids and base64 blobs, which a
recording is full of. Written here: JWTs, bearer and Okta `SSWS` tokens in text, whole PEM
private-key blocks (its detector only sees the BEGIN line) and PuTTY private lines. A documented
example value (`AKIAIOSFODNN7EXAMPLE`, `ghp_xxxx…`) is never a finding.

Most texts hold none of the ~190 literals the shapes are gated on: the literals a key starts with are
looked up among the two or three characters at every start of a run of letters and digits (set
operations), the few others by substring search. Credentials known by their surroundings (URL
userinfo, `.netrc`, command-line options) are `contexts.py`.

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

from .values import is_documented_example
from .vendors import VENDOR_FORMATS, VendorFormat, random_looking

__all__ = ["Finding", "Shape", "find_secrets", "prefixes", "shapes"]

# Characters of base64 / base64url runs: a match glued to more of them is inside an opaque blob.
_BLOB_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=")
# ...except where a run is only a path or an assignment: `/v1/keys/<key>`, `KEY=<key>`.
_SEPARATORS = frozenset("/=")


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
    hints: tuple[str, ...] = ()
    """Literals one of which the text must hold for the pattern to be tried (none: the kind's)."""
    hints_start: bool = False
    """The hints are what a match starts with (a vendor's prefix), not a literal from inside it."""


@dataclass(frozen=True)
class Finding:
    start: int
    end: int
    kind: str


def _detect_secrets_shapes() -> list[Shape]:
    """The regex detectors of detect-secrets that fit recordings (see the module docstring)."""
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector

    out = [Shape("aws_key", AWSKeyDetector.denylist[0])]  # the key id; [1] is a keyword heuristic
    out.append(Shape("aws_secret", AWSKeyDetector.denylist[1], group=1, standalone=False))
    for kind, detector in (
        ("github_token", GitHubTokenDetector),
        ("gitlab_token", GitLabTokenDetector),
        ("slack_token", SlackDetector),
        ("api_key", OpenAIDetector),
        ("pypi_token", PypiTokenDetector),
        ("sendgrid_key", SendGridDetector),
        ("square_token", SquareOAuthDetector),
        ("azure_key", AzureStorageKeyDetector),
    ):
        out += [Shape(kind, pattern) for pattern in detector.denylist]
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
    Shape("jwt", re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
    # a JWT's tail quoted without its header: the payload (base64 JSON) and the signature
    Shape("jwt", re.compile(r"eyJ[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    # A token after `Bearer` in text (a curl command, a log line); "Bearer <token>" and
    # "Bearer $OPENAI_API_KEY" in docs are not random-looking and stay.
    Shape(
        "bearer",
        re.compile(r"(?i)\b(?:bearer|ssws)\s+([A-Za-z0-9._~+/-]{16,}=*)"),  # SSWS: Okta's scheme
        group=1,
        valid=random_looking,
    ),
    # PuTTY's key file: the private lines (base64) and their MAC; the public lines stay
    Shape(
        "private_key",
        re.compile(
            r"Private-Lines:[ \t]*\d+\r?\n((?:[A-Za-z0-9+/=]+\r?\n)*(?:Private-MAC:[ \t]*[0-9a-fA-F]+|[A-Za-z0-9+/=]+))"
        ),
        group=1,
        standalone=False,
    ),
)


def _vendor_valid(fmt: VendorFormat) -> Callable[[str], bool] | None:
    """The row's check: its checksum when that holds, else its `valid` (see `vendors.py`)."""
    checksum, valid = fmt.checksum, fmt.valid
    if checksum is None or valid is None:
        return valid

    def either(secret: str) -> bool:
        return checksum(secret) or valid(secret)

    return either


_VENDOR_SHAPES = tuple(
    Shape(f.kind, re.compile(f.pattern), valid=_vendor_valid(f), hints=f.literals, hints_start=not f.hints)
    for f in VENDOR_FORMATS
)

# Cheap literal pre-checks per kind: a shape whose literals are absent from the text is not tried.
# Substring tests, not one regex alternation: `in` costs far less per character than a 20-branch
# alternation, and most text holds none of them.
_KIND_HINTS: dict[str, tuple[str, ...]] = {
    "private_key": ("PRIVATE KEY", "Private-Lines:"),
    "aws_key": ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    "aws_secret": ("aws", "AWS", "Aws"),
    "gitlab_token": ("gl", "GR1348941"),
    "slack_token": ("xox", "hooks.slack.com"),
    "pypi_token": ("pypi-",),
    "sendgrid_key": ("SG.",),
    "square_token": ("sq0",),
    "azure_key": ("AccountKey",),
    "jwt": ("eyJ",),
    "bearer": ("Bearer", "bearer", "BEARER", "SSWS", "ssws"),
    # detect-secrets' detectors of formats the vendor table also has
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "api_key": ("sk-",),
}


# Hints too common to mark the start of a key (`aws`, `:`, `gl`), left out of `prefixes`.
_NOT_PREFIXES = frozenset({"aws", "AWS", "Aws", "gl", "earer", "EARER", "PRIVATE KEY", "AccountKey"})


def _is_prefix(literal: str) -> bool:
    """A literal a key starts with that is rare enough to mark a stub (`sk-`, `ghp_`; not `SK`, `pat`)."""
    if literal in _NOT_PREFIXES or "/" in literal:
        return False
    return len(literal) >= 4 or (len(literal) == 3 and not literal.isalnum())


@cache
def prefixes() -> tuple[str, ...]:
    """Literal starts of keys (`sk-`, `ghp_`, `eyJ`, `hf_`, …): a stub cut after one is a key's stub."""
    found = {hint for hints in _KIND_HINTS.values() for hint in hints if _is_prefix(hint)}
    for fmt in VENDOR_FORMATS:
        if not fmt.hints:  # a row whose hints are its first literal: a key starts with it
            found.update(literal for literal in fmt.literals if _is_prefix(literal))
    return tuple(sorted(found, key=len, reverse=True))


@cache
def shapes() -> tuple[Shape, ...]:
    """Every shape, most specific first (an Anthropic key is an `sk-` key too)."""
    return (_OWN_SHAPES[0], *_VENDOR_SHAPES, *_detect_secrets_shapes(), *_OWN_SHAPES[1:])


def _standalone(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    glued_before = before in _BLOB_CHARS and before not in _SEPARATORS
    glued_after = after in _BLOB_CHARS and after not in _SEPARATORS
    return not (glued_before or glued_after)


def _hints(shape: Shape) -> tuple[str, ...]:
    return shape.hints or _KIND_HINTS[shape.kind]


# Hints that start a key (`ghp_`, `sk-`, `AKIA`, a Discord token's `MT`) stand at the start of a run of
# letters and digits: one findall of the two and three characters at every such start, and set lookups,
# replace ~250 substring searches of the whole text. The others (`-us`, `Q~`, `:AA`, `earer`) are
# searched for as they are.
_RUN_STARTS = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]\S\S?")


def _starts_a_run(hint: str) -> bool:
    return len(hint) >= 2 and hint[0].isalnum() and not any(c.isspace() for c in hint[:3])


# hints found inside a word or a key rather than at its start
_INNER_HINTS = frozenset({"aws", "AWS", "Aws", "gl", "AccountKey"})


@dataclass(frozen=True)
class _Plan:
    shapes: tuple[Shape, ...]
    by_start: dict[str, tuple[str, ...]]
    """The run-start hints by their first two or three characters."""
    by_hint: dict[str, tuple[int, ...]]
    """The shapes (by index) each run-start hint gates."""
    others: tuple[tuple[int, tuple[str, ...]], ...]
    """The shapes gated by other hints, with those hints."""
    keys3: frozenset[str] = frozenset()
    keys2: frozenset[str] = frozenset()
    """The keys of `by_start` of three and of two characters."""


@cache
def _plan() -> _Plan:
    by_start: dict[str, set[str]] = {}
    by_hint: dict[str, list[int]] = {}
    others: list[tuple[int, tuple[str, ...]]] = []
    all_shapes = shapes()
    for index, shape in enumerate(all_shapes):
        at_start = shape.hints_start or shape.kind in _KIND_HINTS
        starting = [h for h in _hints(shape) if at_start and _starts_a_run(h) and h not in _INNER_HINTS]
        for hint in starting:
            by_start.setdefault(hint[:3], set()).add(hint)
            by_hint.setdefault(hint, []).append(index)
        inner = tuple(h for h in _hints(shape) if h not in starting)
        if inner:
            others.append((index, inner))
    return _Plan(
        all_shapes,
        {k: tuple(v) for k, v in by_start.items()},
        {k: tuple(v) for k, v in by_hint.items()},
        tuple(others),
        frozenset(k for k in by_start if len(k) == 3),
        frozenset(k for k in by_start if len(k) == 2),
    )


def _gated(text: str, plan: _Plan) -> list[int]:
    """The shapes (by index, in order) whose hints `text` holds."""
    chosen: set[int] = set()
    starts = set(_RUN_STARTS.findall(text))
    hit = starts & plan.keys3  # set operations in C: most texts hold few of the keys' starts
    if plan.keys2:
        hit |= {start[:2] for start in starts} & plan.keys2
    for start in hit:
        for hint in plan.by_start[start]:
            if len(hint) <= len(start) or hint in text:
                chosen.update(plan.by_hint[hint])
    seen: dict[str, bool] = {}
    for index, hints in plan.others:
        if index in chosen:
            continue
        for hint in hints:
            known = seen.get(hint)
            if known is None:
                known = seen[hint] = hint in text
            if known:
                chosen.add(index)
                break
    return sorted(chosen)


def find_secrets(text: str) -> list[Finding]:
    """Non-overlapping secrets in `text`, in order (the first shape to claim a span wins)."""
    plan = _plan()
    found: list[Finding] = []
    taken: list[tuple[int, int]] = []
    for index in _gated(text, plan):
        shape = plan.shapes[index]
        for match in shape.pattern.finditer(text):
            start, end = match.span(shape.group)
            if start < 0 or end <= start:
                continue
            if shape.standalone and not _standalone(text, start, end):
                continue
            if shape.valid is not None and not shape.valid(text[start:end]):
                continue
            if shape.kind != "private_key" and is_documented_example(text[start:end]):
                continue  # `AKIAIOSFODNN7EXAMPLE`, `ghp_xxxx…`: the docs' own values
            if any(s < end and start < e for s, e in taken):
                continue
            taken.append((start, end))
            found.append(Finding(start, end, shape.kind))
    found.sort(key=lambda f: f.start)
    return found

"""Vendor key formats as data: one row per format, from the vendor's own documentation of its keys.

Each row says what a key of that vendor looks like (a literal prefix, then a body of a charset and a
length range) and whether the vendor builds a checksum into it. `shapes.py` compiles the rows into
`Shape`s; `tests/proxy/redact/test_vendors.py` holds one planted key and one look-alike per row.

Checksums: GitHub (`ghp_…`, since 2021) and npm (`npm_…`) end their tokens in a CRC32 of the random
part. The column records it, but a match is not refused on a failed check: prefix, charset and length
already make a look-alike unlikely, and a check that differs from the vendor's in one detail would
let every real key through.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["VENDOR_FORMATS", "VendorFormat", "mixed_case", "random_key", "random_looking"]

_RANDOM_RUN = re.compile(r"[A-Za-z0-9]{20,}")


def random_looking(secret: str) -> bool:
    """A run of 20+ letters and digits with both in it: what a generated key has and a word list has not."""
    for run in _RANDOM_RUN.findall(secret):
        if any(c.isdigit() for c in run) and any(c.isalpha() for c in run):
            return True
    return False


_LOWER_HEX = frozenset("0123456789abcdef")


def random_key(secret: str) -> bool:
    """`random_looking`, but a run of lowercase hex alone is a name's hash (`sk-worker-7f9c8d5b6a1e…-xk2lp`,
    a pod or a branch), not the mixed-case body of a generated key."""
    for run in _RANDOM_RUN.findall(secret):
        if any(c.isdigit() for c in run) and any(c.isalpha() for c in run) and not set(run) <= _LOWER_HEX:
            return True
    return False


def mixed_case(secret: str) -> bool:
    """Letters-only keys (Hugging Face): random case, not the few capitals of a CamelCase name."""
    return sum(c.isupper() for c in secret) >= 8 and sum(c.islower() for c in secret) >= 8


@dataclass(frozen=True)
class VendorFormat:
    """One documented key format."""

    kind: str
    """The placeholder kind (`<redacted:KIND:N>`)."""
    vendor: str
    pattern: str
    """The whole key as a regex: the literal prefix, then the body's charset and length."""
    hints: tuple[str, ...]
    """Literals one of which every key of the format contains (text without them is not searched)."""
    checksum: str | None = None
    """The vendor's built-in checksum, where there is one (recorded, not enforced: see above)."""
    valid: Callable[[str], bool] | None = None
    """An extra check where the charset alone would take words (`sk-button-primary`)."""


VENDOR_FORMATS: tuple[VendorFormat, ...] = (
    VendorFormat("api_key", "Anthropic", r"sk-ant-(?:api|admin|oat)\d\d-[A-Za-z0-9_-]{40,}", ("sk-ant-",)),
    # OpenAI: sk-proj-, sk-svcacct-, sk-admin- and legacy sk- keys, all free-form bodies
    VendorFormat("api_key", "OpenAI", r"sk-[A-Za-z0-9_-]{20,}", ("sk-",), valid=random_key),
    VendorFormat("google_api_key", "Google API key", r"AIza[0-9A-Za-z_-]{35}", ("AIza",)),
    VendorFormat(
        "google_oauth_secret", "Google OAuth client secret", r"GOCSPX-[A-Za-z0-9_-]{28}", ("GOCSPX-",)
    ),
    VendorFormat(
        "github_token", "GitHub fine-grained", r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}", ("github_pat_",)
    ),
    VendorFormat(
        "github_token",
        "GitHub",
        r"gh[pousr]_[A-Za-z0-9]{36,255}",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        checksum="crc32",
    ),
    VendorFormat("slack_token", "Slack", r"xox[abposre]-[A-Za-z0-9-]{10,}", ("xox",)),
    # Stripe: secret and restricted keys, live and test; current keys run to ~107 characters (up to 255)
    VendorFormat("stripe_key", "Stripe", r"[rs]k_(?:live|test)_[0-9A-Za-z]{24,247}", ("k_live_", "k_test_")),
    VendorFormat("twilio_key", "Twilio API key SID", r"SK[0-9a-f]{32}", ("SK",)),
    VendorFormat(
        "npm_token", "npm", r"npm_[A-Za-z0-9]{36}", ("npm_",), checksum="crc32", valid=random_looking
    ),
    VendorFormat("digitalocean_token", "DigitalOcean", r"do[opr]_v1_[0-9a-f]{64}", ("_v1_",)),
    # Telegram: `<bot id>:<35 characters>`; the secret part of every token the Bot API issues starts `AA`
    VendorFormat("telegram_token", "Telegram bot", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}", (":AA",)),
    VendorFormat("hf_token", "Hugging Face", r"hf_[A-Za-z]{34}", ("hf_",), valid=mixed_case),
)

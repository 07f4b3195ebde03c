"""Vendor formats (`proxy/redact/vendors.py`): one generated key per row is found with the row's kind,
in prose, in an assignment and in JSON; hand-picked look-alikes (a public id, a template, a name) are
kept byte for byte; the GitHub and npm checksums hold for a generated key and fail for a changed one."""

from __future__ import annotations

import json
import random

import pytest

from ctxscope.proxy.redact import Redactor
from ctxscope.proxy.redact.checksums import base62_crc32, crc32_tail_ok
from ctxscope.proxy.redact.vendors import VENDOR_FORMATS, VendorFormat, sample
from tests.proxy.redact import samples_support as samples

_ROWS = list(enumerate(VENDOR_FORMATS))


@pytest.mark.parametrize(("index", "fmt"), _ROWS, ids=[f"{i}-{f.vendor}" for i, f in _ROWS])
def test_a_key_generated_from_each_row_is_found_with_its_kind(index: int, fmt: VendorFormat) -> None:
    rng = random.Random(index)
    for _ in range(3):  # three lengths and draws of the row's runs
        key = sample(fmt, rng)
        placeholder = f"<redacted:{fmt.kind}:1>"
        assert Redactor().text(f"the key is {key} (do not share)") == f"the key is {placeholder} (do not share)"
        assert Redactor().text(f"SETTING={key}\n") == f"SETTING={placeholder}\n"
        assert Redactor().body({"config": json.dumps({"k": key})}) == {"config": json.dumps({"k": placeholder})}


@pytest.mark.parametrize(
    ("kind", "key", "look_alike"), samples.VENDOR_ROWS, ids=[r[1][:10] for r in samples.VENDOR_ROWS]
)
def test_a_planted_key_is_found_and_its_look_alike_kept(kind: str, key: str, look_alike: str) -> None:
    red = Redactor()
    out = red.text(f"the key is {key} (do not share)")
    assert out == f"the key is <redacted:{kind}:1> (do not share)"
    assert red.text(look_alike) == look_alike


def test_a_stripe_key_of_any_documented_length() -> None:
    for body in ("51" + "aB3" * 8, "51" + "aB3" * 33, "51" + "aB3" * 80):
        key = f"sk_live_{body}"
        assert Redactor().text(f"STRIPE={key}") == "STRIPE=<redacted:stripe_key:1>"


def test_the_crc32_tail_of_github_and_npm_tokens() -> None:
    rng = random.Random(5)
    for fmt in VENDOR_FORMATS:
        if fmt.checksum is None:
            continue
        key = sample(fmt, rng)
        assert fmt.checksum(key), key
        changed = key[:-1] + ("A" if key[-1] != "A" else "B")
        assert not crc32_tail_ok(changed)
    assert base62_crc32("") == "000000"


def test_a_checksummed_npm_token_is_found_even_without_digits() -> None:
    body = "".join(random.Random(2).choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(30))
    key = f"npm_{body}{base62_crc32(body)}"
    assert crc32_tail_ok(key)
    assert Redactor().text(f"token {key}.") == "token <redacted:npm_token:1>."

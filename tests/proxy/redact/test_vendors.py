"""Vendor formats (`proxy/redact/vendors.py`), one row each: a planted key is found with its kind, and a
look-alike (a public id, a template, a name) is kept byte for byte."""

from __future__ import annotations

import pytest

from ctxscope.proxy.redact import Redactor
from ctxscope.proxy.redact.vendors import VENDOR_FORMATS
from tests.proxy.redact import samples_support as samples


@pytest.mark.parametrize(
    ("kind", "key", "look_alike"), samples.VENDOR_ROWS, ids=[r[1][:10] for r in samples.VENDOR_ROWS]
)
def test_a_planted_key_is_found_and_its_look_alike_kept(kind: str, key: str, look_alike: str) -> None:
    red = Redactor()
    out = red.text(f"the key is {key} (do not share)")
    assert out == f"the key is <redacted:{kind}:1> (do not share)"
    assert red.text(look_alike) == look_alike


def test_every_vendor_format_has_a_row() -> None:
    kinds = {kind for kind, _, _ in samples.VENDOR_ROWS}
    assert {f.kind for f in VENDOR_FORMATS} <= kinds


def test_a_stripe_key_of_any_documented_length() -> None:
    for body in ("51" + "aB3" * 8, "51" + "aB3" * 33, "51" + "aB3" * 80):
        key = f"sk_live_{body}"
        assert Redactor().text(f"STRIPE={key}") == "STRIPE=<redacted:stripe_key:1>"

"""The redactor's memory of what it scanned: short values too, a secret learnt later still found in them,
and a repeated `Authorization` header the same placeholder without being looked at again."""

from __future__ import annotations

from mitmproxy import http

from ctxscope.proxy.flow_fields import fields_dict
from ctxscope.proxy.redact import Redactor

SHORT_SECRET = "Zq8x-W2pL"  # 9 characters: under the 16 a shaped key needs, still a credential's value


def test_a_short_value_scanned_before_a_secret_was_learnt_is_redacted_after() -> None:
    red = Redactor()
    value = f"k={SHORT_SECRET}"
    assert red.text(value) == value  # scanned and remembered as clean
    assert red.learn_environment({"MY_SERVICE_TOKEN": SHORT_SECRET}) == 1
    assert SHORT_SECRET not in red.text(value)
    assert red.text(value) == red.text(value)  # the second answer comes from memory, the same


def test_a_value_cleared_again_at_a_newer_version_still_sees_a_secret_learnt_after_that() -> None:
    red = Redactor()
    other, later = "Other-Tok3n-9f2k", "Later-Tok3n-4h7q"
    value = f"header {later} tail"
    assert red.text(value) == value
    red.learn_environment({"FIRST_API_TOKEN": other})  # not in the value: the entry is cleared once more
    assert red.text(value) == value
    red.learn_environment({"SECOND_API_TOKEN": later})
    assert later not in red.text(value)


def test_short_values_are_answered_from_memory() -> None:
    red = Redactor()
    scans: list[str] = []
    scan = red._scan

    def counting(value: str) -> tuple[str, list[tuple[int, int, str]]]:
        scans.append(value)
        return scan(value)

    red._scan = counting  # type: ignore[method-assign]
    for _ in range(3):
        assert red.body({"role": "assistant", "type": "message", "model": "gpt-bench"}) is not None
    assert sorted(scans) == ["assistant", "gpt-bench", "message"]


def test_a_repeated_authorization_header_keeps_its_placeholder_and_a_new_token_gets_its_own() -> None:
    red = Redactor()
    first = red.header_value("Authorization", "Bearer opaque-token-0123456789abcdef")
    assert first == red.header_value("Authorization", "Bearer opaque-token-0123456789abcdef")
    second = red.header_value("Authorization", "Bearer opaque-token-fedcba9876543210")
    assert first.startswith("Bearer <redacted:") and second.startswith("Bearer <redacted:")
    assert first != second
    # learnt from the header: found in a body later, whole
    assert "opaque-token-0123456789abcdef" not in red.text("echo opaque-token-0123456789abcdef")


def test_header_fields_make_the_dict_mitmproxys_headers_make() -> None:
    cases = [
        (),
        ((b"Host", b"a"), (b"Accept", b"*/*")),
        ((b"Set-Cookie", b"a=1"), (b"set-cookie", b"b=2"), (b"SET-COOKIE", b"c=3")),
        ((b"X-Odd", b"caf\xc3\xa9"), (b"X-Bad", b"\xff\xfe"), (b"x-odd", b"again")),
        ((b"\xe4-name", b"v"), (b"A", b""), (b"a", b"")),
    ]
    for fields in cases:
        headers = http.Headers(fields)
        theirs = {name: ", ".join(headers.get_all(name)) for name in headers.keys()}  # mitmproxy's own API
        assert fields_dict(fields) == theirs
        assert list(fields_dict(fields)) == list(theirs)

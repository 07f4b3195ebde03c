"""The Redactor on planted secrets (every kind gone) and look-alikes (every one unchanged)."""

from __future__ import annotations

import re

import pytest

from ctxscope.proxy.redact import PLACEHOLDER_RE, Redactor
from tests.proxy.redact import samples_support as samples


@pytest.mark.parametrize(("secret", "text"), samples.IN_TEXT, ids=[t[:24] for _, t in samples.IN_TEXT])
def test_every_planted_kind_is_redacted_in_text(secret: str, text: str) -> None:
    redacted = Redactor().text(text)
    assert secret not in redacted
    assert "<redacted:" in redacted


@pytest.mark.parametrize("text", samples.NOT_SECRETS, ids=[t[:24] for t in samples.NOT_SECRETS])
def test_look_alikes_are_left_exactly_as_they_are(text: str) -> None:
    assert Redactor().text(text) == text


def test_a_pem_key_goes_as_a_whole_block() -> None:
    out = Redactor().text(f"before\n{samples.PEM}\nafter")
    assert out == "before\n<redacted:private_key:1>\nafter"


def test_a_password_in_a_database_url_leaves_the_rest_of_the_url() -> None:
    out = Redactor().text(f"postgres://app:{samples.DB_PASSWORD}@db:5432/x")
    assert out == "postgres://app:<redacted:password:1>@db:5432/x"


def test_placeholders_are_numbered_by_first_appearance_and_reveal_nothing() -> None:
    red = Redactor()
    a, b = samples.OPENAI_KEY, samples.ANTHROPIC_KEY
    out = red.text(f"{a} {b} {a}")
    assert out == "<redacted:api_key:1> <redacted:api_key:2> <redacted:api_key:1>"
    # the same secret in a header or a JSON field is the same placeholder
    assert red.header_value("Authorization", f"Bearer {b}") == "Bearer <redacted:api_key:2>"
    assert red.body({"api_key": a}) == {"api_key": "<redacted:api_key:1>"}
    assert all(m.group(2).isdigit() for m in PLACEHOLDER_RE.finditer(out))


def test_headers_by_name_and_ids_kept() -> None:
    headers = {
        "x-auth-token": samples.X_AUTH,
        "private-token": samples.PRIVATE_TOKEN,
        "x-amz-security-token": samples.AMZ_TOKEN,
        "X-Custom-Provider": "custom-value-0123",
        "session-id": "019342f7-8e1c-7a2b-9c3d-4e5f6a7b8c9d",
        "thread-id": "thr_1",
        "x-ratelimit-remaining-tokens": "149990",
    }
    out = Redactor(secret_headers=["x-custom-provider"]).headers(headers)
    for name in ("x-auth-token", "private-token", "x-amz-security-token", "X-Custom-Provider"):
        assert PLACEHOLDER_RE.fullmatch(out[name]), name
    for name in ("session-id", "thread-id", "x-ratelimit-remaining-tokens"):
        assert out[name] == headers[name]


def test_json_keys_numeric_and_nested_passwords_but_not_logprobs_tokens() -> None:
    body = {
        "auth_token": "at-0123456789",
        "config": {"db": {"password": samples.NUMERIC_PASSWORD, "host": "db"}},
        "logprobs": [{"token": "Hello", "logprob": -0.1}],
        "schema": {"properties": {"password": {"type": "string"}}},
        "prompt_cache_key": "019342f7",
    }
    out = Redactor().body(body)
    assert PLACEHOLDER_RE.fullmatch(out["auth_token"])
    assert PLACEHOLDER_RE.fullmatch(out["config"]["db"]["password"]) and out["config"]["db"]["host"] == "db"
    assert out["logprobs"] == body["logprobs"] and out["schema"] == body["schema"]
    assert out["prompt_cache_key"] == "019342f7"


def test_unchanged_json_is_returned_as_the_same_object() -> None:
    body = {"model": "gpt-5", "input": [{"type": "message", "content": "hello"}]}
    assert Redactor().body(body) is body


def test_urls_keep_every_byte_but_the_secret() -> None:
    red = Redactor()
    url = f"https://h/v1/models?alt=json&key={samples.GOOGLE_KEY}&q=a+b%20c"
    out = red.url(url)
    assert samples.GOOGLE_KEY not in out
    assert re.fullmatch(r"https://h/v1/models\?alt=json&key=<redacted:google_api_key:1>&q=a\+b%20c", out)
    assert red.url("https://h/v1/responses?x=1") == "https://h/v1/responses?x=1"


def test_redacting_twice_changes_nothing_more() -> None:
    red = Redactor()
    once = [red.text(text) for _, text in samples.IN_TEXT]
    assert [red.text(text) for text in once] == once


def test_logprobs_tokens_spelling_a_secret_are_recut() -> None:
    key = samples.OPENAI_KEY
    text = f"ok: {key} done"
    tokens = ["ok", ": sk", "-proj-", key[8:30], key[30:], " done"]
    item = {"type": "output_text", "text": text, "logprobs": [{"token": t, "logprob": -1.0} for t in tokens]}
    out = Redactor().body(item)
    assert out["text"] == "ok: <redacted:api_key:1> done"
    assert "".join(lp["token"] for lp in out["logprobs"]) == out["text"]
    assert not any(key[10:20] in lp["token"] for lp in out["logprobs"])


def _fragments(secret: str, size: int = 12) -> list[str]:
    return [secret[i : i + size] for i in range(max(1, len(secret) - size + 1))]


@pytest.mark.parametrize(
    ("secret", "text"), samples.CONTEXT_IN_TEXT, ids=[t[:28] for _, t in samples.CONTEXT_IN_TEXT]
)
def test_credentials_known_by_their_context_are_redacted(secret: str, text: str) -> None:
    redacted = Redactor().text(text)
    assert [f for f in _fragments(secret) if f in redacted] == []
    assert "<redacted:" in redacted


@pytest.mark.parametrize("text", samples.CODE_LOOK_ALIKES, ids=[t[:28] for t in samples.CODE_LOOK_ALIKES])
def test_code_and_prose_that_names_a_credential_stays_byte_identical(text: str) -> None:
    assert Redactor().text(text) == text


def test_the_name_keeps_its_context_and_only_the_value_goes() -> None:
    red = Redactor()
    assert red.text("curl -u bob:Xk3pQ9zL2 https://h") == "curl -u bob:<redacted:password:1> https://h"
    assert red.text("mysql -u root -pXk3pQ9zL2 db") == "mysql -u root -p<redacted:password:1> db"
    assert red.text("aws_secret_access_key = abcDEF123") == "aws_secret_access_key = <redacted:secret:1>"
    url = "https://bob:P@ss!w0rd%21@git.example.com/x"
    assert red.text(url) == "https://bob:<redacted:password:2>@git.example.com/x"


def test_json_token_by_its_context_and_nested_credentials() -> None:
    body = {
        "metadata": {"token": samples.METADATA_TOKEN, "user": "bob"},
        "session": {"type": "session.update", "token": samples.WS_SESSION_TOKEN},
        "credentials": {"type": "api_key", "value": samples.CREDENTIALS_VALUE, "expires_at": 0},
        "logprobs": [{"token": "Xk3pQ9zL2mN8vB7c", "logprob": -0.1, "bytes": [88]}],
        "usage": {"token": 12, "input_tokens": 3},
        "parameters": {"properties": {"credentials": {"type": "object"}, "token": {"type": "string"}}},
    }
    out = Redactor().body(body)
    assert PLACEHOLDER_RE.fullmatch(out["metadata"]["token"]) and out["metadata"]["user"] == "bob"
    assert PLACEHOLDER_RE.fullmatch(out["session"]["token"])
    assert PLACEHOLDER_RE.fullmatch(out["credentials"]["value"])
    assert out["credentials"]["type"] == "api_key" and out["credentials"]["expires_at"] == 0
    for key in ("logprobs", "usage", "parameters"):
        assert out[key] == body[key], key


def test_a_secret_found_by_its_context_is_found_again_without_it() -> None:
    red = Redactor()
    red.text(f"DB_PASSWORD={samples.DB_PASSWORD}")  # a tool output
    assert red.text(f"The password is {samples.DB_PASSWORD}.") == "The password is <redacted:password:1>."
    jwt_tail = samples.JWT.split(".", 1)[1]
    red.text(f"id: {samples.JWT}")
    out = red.text(f"its payload and signature: {jwt_tail}")
    assert [f for f in _fragments(jwt_tail) if f in out] == []


def test_a_base64_blob_is_kept_unless_it_decodes_to_a_credential() -> None:
    blob = samples.B64_JSON
    assert Redactor().text(f"SA={blob}") != f"SA={blob}"
    harmless = __import__("base64").b64encode(b'{"type": "service", "region": "eu-west-1"}').decode()
    assert Redactor().text(f"SA={harmless}") == f"SA={harmless}"


def test_an_opaque_bearer_token_from_a_header_is_found_when_quoted() -> None:
    red = Redactor()
    token = "opaque" + samples.BEARER_OPAQUE
    assert red.header_value("Authorization", f"Bearer {token}") == "Bearer <redacted:bearer:1>"
    assert red.text(f"the token was {token}") == "the token was <redacted:bearer:1>"


def test_a_redactor_sent_to_another_process_keeps_what_it_learnt() -> None:
    # The recording process hands its redactor back (pickled, over a pipe) so that `ctxscope run`
    # redacts Codex's trace with the recording's placeholders: the same secret, the same placeholder,
    # and a new secret numbered after the ones already met.
    import pickle

    learnt = Redactor()
    key = "sk-proj-" + "Zq8vN2xL5kR7" * 4
    learnt.learn_environment({"MY_SERVICE_TOKEN": "tok_" + "a1B2c3D4e5F6g7H8" * 2})
    first = learnt.text(f"Authorization: Bearer {key}")
    copy = pickle.loads(pickle.dumps(learnt))
    assert copy.text(f"again {key}") == "again " + first.split("Bearer ")[1]
    assert copy.text("tok_" + "a1B2c3D4e5F6g7H8" * 2) == learnt.text("tok_" + "a1B2c3D4e5F6g7H8" * 2)
    other = "sk-ant-api03-" + "Qw3rTy7uIo9p" * 7
    assert copy.text(other) == learnt.text(other)  # numbered alike: the numbering came along


@pytest.mark.parametrize(
    ("name", "value", "redacted"),
    [
        ("X-Acme-Session", "acme_live_9fK2mQx7Lw3vR8tZp1Yc", True),  # a vendor's session token, no known shape
        ("X-Sess", "Qm8vL2xP9kRt4Wz7Yc3N", True),
        ("session_id", "019342f7-1a2b-7c3d-8e9f-0123456789ab", False),  # Codex's conversation id: a UUID
        ("session-id", "019342f7-1a2b-7c3d-8e9f-0123456789ab", False),
        ("X-Session", "default", False),  # a word, not a credential
    ],
)
def test_a_session_header_is_a_credential_only_with_a_generated_looking_value(
    name: str, value: str, redacted: bool
) -> None:
    red = Redactor()
    out = red.header_value(name, value)
    assert (out != value) is redacted and (value not in out) is redacted
    if redacted:  # remembered: quoted later in a tool's output, it goes too
        assert value not in red.text(f"echo {value} > session.txt")

"""Which names mark a credential: credential-naming headers and keys go, ids and counters stay."""

from __future__ import annotations

import pytest

from ctxscope.proxy.redact import is_secret_name

CREDENTIAL_HEADERS = [
    "Authorization",
    "Proxy-Authorization",
    "Cookie",
    "x-auth-token",
    "private-token",
    "x-amz-security-token",
    "x-goog-api-key",
    "anthropic-api-key",
    "x-client-secret",
    "chatgpt-account-id",
]
ID_HEADERS = [
    "session-id",
    "thread-id",
    "x-request-id",
    "x-ratelimit-remaining-tokens",
    "x-ratelimit-limit-tokens",
    "openai-processing-ms",
    "x-codex-turn-metadata",
    "idempotency-key",
    "user-agent",
]


@pytest.mark.parametrize("name", CREDENTIAL_HEADERS)
def test_credential_headers_are_secret(name: str) -> None:
    assert is_secret_name(name, "header")


@pytest.mark.parametrize("name", ID_HEADERS)
def test_ids_and_counters_are_not(name: str) -> None:
    assert not is_secret_name(name, "header")


def test_json_keys_only_where_the_key_names_a_credential() -> None:
    for key in ("auth_token", "password", "refresh_token", "account_id", "apiKey", "client_secret"):
        assert is_secret_name(key, "json"), key
    # logprobs tokens, reasoning signatures, counters and cache keys stay
    for key in ("token", "signature", "input_tokens", "prompt_cache_key", "next_page_token", "key"):
        assert not is_secret_name(key, "json"), key
    assert is_secret_name("key", "query") and is_secret_name("token", "query")


def test_environment_names() -> None:
    for name in ("GH_PAT", "MY_SERVICE_AUTH", "DB_PWD", "SENTRY_DSN", "OPENAI_API_KEY", "DB_PASS"):
        assert is_secret_name(name, "env"), name
    for name in ("PWD", "OLDPWD", "PATH", "HOME", "TOKEN_COUNT", "AUTH_MODE"):
        assert not is_secret_name(name, "env"), name

"""Providers: API key, custom endpoints, ChatGPT auth.json with refresh against a local token server."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import pytest

from ctxscope.harness.client import ResponsesClient
from ctxscope.harness.config import HarnessConfig, RetrySettings, load_config
from ctxscope.harness.errors import AuthError
from ctxscope.harness.providers import ChatGptProvider, jwt_expiry, make_provider
from ctxscope.harness.request import build_request
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.testing import FakeUpstream, JsonReply, SseReply, response_stream, text_message


def jwt(exp: float) -> str:
    def part(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part({'exp': int(exp), 'sub': 'u'})}.c2lnbmF0dXJl"


def write_auth(path: Path, access: str, refresh: str | None = "rt-1") -> Path:
    tokens = {"access_token": access, "account_id": "acct-42", "id_token": "idt"}
    if refresh is not None:
        tokens["refresh_token"] = refresh
    path.write_text(json.dumps({"tokens": tokens, "last_refresh": "2026-01-01T00:00:00Z"}), encoding="utf-8")
    return path


def test_missing_api_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = make_provider(HarnessConfig(provider="apikey"))
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set: export OPENAI_API_KEY"):
        provider.check()


def test_api_key_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abc")
    monkeypatch.setenv("OPENAI_PROJECT", "proj_1")
    provider = make_provider(HarnessConfig(provider="apikey"))
    assert provider.base_url == "https://api.openai.com/v1"
    assert provider.headers() == {"Authorization": "Bearer sk-abc", "OpenAI-Project": "proj_1"}


def test_custom_provider_from_config(monkeypatch: pytest.MonkeyPatch) -> None:
    config = HarnessConfig(
        provider="local",
        providers={
            "local": {
                "base_url": "http://127.0.0.1:8000/v1/",
                "env_key": "LOCAL_KEY",
                "headers": {"X-Team": "a"},
            }
        },
    )
    provider = make_provider(config)
    assert provider.base_url == "http://127.0.0.1:8000/v1" and provider.origin == "http://127.0.0.1:8000"
    monkeypatch.delenv("LOCAL_KEY", raising=False)
    with pytest.raises(ConfigError, match="LOCAL_KEY is not set"):
        provider.headers()
    monkeypatch.setenv("LOCAL_KEY", "k")
    assert provider.headers() == {"X-Team": "a", "Authorization": "Bearer k"}


def test_unknown_provider_lists_choices() -> None:
    with pytest.raises(
        ConfigError, match="unknown provider 'nope': use one of apikey, chatgpt, script, mine"
    ):
        make_provider(HarnessConfig(provider="nope", providers={"mine": {"base_url": "http://x"}}))


@pytest.mark.parametrize("url", ["foo", "ftp://x/v1", "http:///v1", "http://127.0.0.1:abc/v1"])
def test_base_url_that_is_not_http_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match="is not an http\\(s\\) URL"):
        make_provider(HarnessConfig(provider="apikey", base_url=url))


def test_missing_auth_json_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    provider = make_provider(HarnessConfig(provider="chatgpt"))
    with pytest.raises(ConfigError, match=r"no ChatGPT login found at .*codex/auth.json.*CODEX_HOME"):
        provider.check()


def test_expired_token_without_refresh_token(tmp_path: Path) -> None:
    auth = write_auth(tmp_path / "auth.json", jwt(time.time() - 3600), refresh=None)
    provider = make_provider(HarnessConfig(provider="chatgpt"), auth_file=auth)
    with pytest.raises(AuthError, match="expired and there is no refresh token: sign in again"):
        provider.check()


def test_valid_token_sends_account_id(tmp_path: Path) -> None:
    token = jwt(time.time() + 3600)
    auth = write_auth(tmp_path / "auth.json", token)
    provider = make_provider(HarnessConfig(provider="chatgpt"), auth_file=auth)
    assert provider.base_url == "https://chatgpt.com/backend-api/codex"
    assert provider.headers() == {"Authorization": f"Bearer {token}", "ChatGPT-Account-ID": "acct-42"}
    assert jwt_expiry(token) == pytest.approx(time.time() + 3600, abs=5)


def test_expired_token_is_refreshed_at_the_token_endpoint(tmp_path: Path) -> None:
    auth = write_auth(tmp_path / "auth.json", jwt(time.time() - 10))
    fresh = jwt(time.time() + 3600)
    with FakeUpstream() as tokens:
        tokens.reply(JsonReply({"access_token": fresh, "refresh_token": "rt-2", "id_token": "idt-2"}))
        config = HarnessConfig(provider="chatgpt", chatgpt={"token_url": f"{tokens.url}/oauth/token"})
        provider = make_provider(config, auth_file=auth)
        headers = provider.headers()
    assert headers["Authorization"] == f"Bearer {fresh}"
    (grant,) = tokens.requests
    assert grant.path == "/oauth/token"
    assert grant.json()["grant_type"] == "refresh_token" and grant.json()["refresh_token"] == "rt-1"
    saved = json.loads(auth.read_text())
    assert saved["tokens"]["access_token"] == fresh and saved["tokens"]["refresh_token"] == "rt-2"
    assert saved["last_refresh"] != "2026-01-01T00:00:00Z" and saved["tokens"]["account_id"] == "acct-42"
    assert auth.stat().st_mode & 0o777 == 0o600  # rotated tokens are owner-only


def test_refused_refresh_is_a_clear_error(tmp_path: Path) -> None:
    auth = write_auth(tmp_path / "auth.json", jwt(time.time() - 10))
    with FakeUpstream() as tokens:
        tokens.reply(JsonReply({"error": "invalid_grant"}, status=400))
        provider = ChatGptProvider(
            name="chatgpt",
            base_url="http://127.0.0.1:9",
            auth_path=auth,
            token_url=f"{tokens.url}/oauth/token",
        )
        with pytest.raises(AuthError, match=r"refreshing the ChatGPT login failed \(HTTP 400\)"):
            provider.headers()


def test_401_triggers_one_refresh_and_a_retry(tmp_path: Path) -> None:
    old, fresh = jwt(time.time() + 3600), jwt(time.time() + 7200)
    auth = write_auth(tmp_path / "auth.json", old)
    with FakeUpstream() as tokens, FakeUpstream() as backend:
        tokens.reply(JsonReply({"access_token": fresh}))
        backend.reply(
            JsonReply({"error": {"message": "expired"}}, status=401),
            SseReply(response_stream(text_message("hi"))),
        )
        provider = ChatGptProvider(
            name="chatgpt",
            base_url=f"{backend.url}/backend-api/codex",
            auth_path=auth,
            token_url=f"{tokens.url}/oauth/token",
        )
        request = build_request(
            model="m", instructions=None, input_items=[], tools=[], session_id="s", turn_id="t"
        )
        with ResponsesClient(provider, retry=RetrySettings(max_retries=0)) as client:
            result = client.stream(request)
    assert result.items[0].text() == "hi"
    first, second = backend.requests
    assert first.path == "/backend-api/codex/responses"
    assert (
        first.headers["authorization"] == f"Bearer {old}"
        and second.headers["authorization"] == f"Bearer {fresh}"
    )
    assert second.headers["chatgpt-account-id"] == "acct-42"


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('max_steps = "a"', "max_steps must be a whole number"),
        ("model = 5", "model must be a string"),
        ('skill_dirs = "skills"', "skill_dirs must be a list of paths"),
        ("providers = 3", "providers must be a table"),
        ('parallel_tool_calls = "yes"', "parallel_tool_calls must be true or false"),
    ],
)
def test_config_value_of_the_wrong_type_is_a_config_error(tmp_path: Path, toml: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(toml + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=f"{message} in {path}"):
        load_config(path)


def test_config_values_of_the_right_type_load(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('model = "m"\nmax_steps = 3\nparallel_tool_calls = true\nskill_dirs = ["s"]\n', "utf-8")
    config = load_config(path)
    assert (config.model, config.max_steps, config.parallel_tool_calls) == ("m", 3, True)
    assert config.skill_dirs == (tmp_path / "s",)


def test_a_loopback_base_url_sends_a_key_if_set_but_needs_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for url in ("http://127.0.0.1:8000/v1", "http://localhost:9/v1", "http://[::1]:9/v1"):
        provider = make_provider(HarnessConfig(provider="apikey", base_url=url))
        provider.check()
        assert provider.auth_headers() == {}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abc")
    local = make_provider(HarnessConfig(provider="apikey", base_url="http://127.0.0.1:8000/v1"))
    assert local.auth_headers()["Authorization"] == "Bearer sk-abc"
    monkeypatch.delenv("OPENAI_API_KEY")
    remote = make_provider(HarnessConfig(provider="apikey", base_url="https://example.com/v1"))
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        remote.check()

"""ProxyServer: in-process mitmproxy on its own thread — port 0, stop/start, clear start-up errors."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import httpx
import pytest

from ctxscope.proxy.errors import ConfigError, ProxyStartError
from ctxscope.proxy.runner import ProxyServer, split_upstream
from ctxscope.proxy.testing import FakeUpstream


def test_port_zero_start_stop_start(upstream: FakeUpstream) -> None:
    for _ in range(2):
        with ProxyServer([], upstream=upstream.url) as proxy:
            assert proxy.port > 0 and proxy.url == f"http://127.0.0.1:{proxy.port}"
            assert httpx.get(f"{proxy.url}/v1/models", timeout=10).status_code == 200
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{proxy.url}/v1/models", timeout=10)
    assert len(upstream.requests) == 2


def test_port_taken_is_one_clear_error_and_the_next_start_works(upstream: FakeUpstream) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ProxyStartError) as info:
            ProxyServer([], upstream=upstream.url, listen_port=port).start()
    message = str(info.value)
    assert f"127.0.0.1:{port}" in message and "in use" in message and "\n" not in message
    with ProxyServer([], upstream=upstream.url) as proxy:
        assert httpx.get(f"{proxy.url}/v1/models", timeout=10).status_code == 200


def test_one_proxy_per_process(upstream: FakeUpstream) -> None:
    with ProxyServer([], upstream=upstream.url):
        with pytest.raises(ProxyStartError, match="already running"):
            ProxyServer([], upstream=upstream.url).start()


def test_stop_twice_is_harmless(upstream: FakeUpstream) -> None:
    proxy = ProxyServer([], upstream=upstream.url).start()
    proxy.stop()
    proxy.stop()
    assert not proxy.running


def test_upstream_path_prefix_is_prepended_unless_already_sent(upstream: FakeUpstream) -> None:
    with ProxyServer([], upstream=f"{upstream.url}/backend-api/codex/") as proxy:
        httpx.post(f"{proxy.url}/responses", json={}, timeout=10)
        httpx.post(f"{proxy.url}/backend-api/codex/responses", json={}, timeout=10)
        httpx.get(f"{proxy.url}/models?client_version=1", timeout=10)
    assert [r.path for r in upstream.requests] == [
        "/backend-api/codex/responses",
        "/backend-api/codex/responses",
        "/backend-api/codex/models?client_version=1",
    ]


def test_bad_settings_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="mode"):
        ProxyServer([], mode="sideways", upstream="https://x")
    with pytest.raises(ConfigError, match="upstream"):
        ProxyServer([], mode="reverse", upstream=None)
    with pytest.raises(ConfigError, match="upstream"):
        ProxyServer([], upstream="ftp://example.com")
    assert split_upstream("https://chatgpt.com/backend-api/codex") == (
        "https://chatgpt.com",
        "/backend-api/codex",
    )
    assert split_upstream("api.openai.com") == ("https://api.openai.com", "")


def test_mitmproxy_files_live_in_the_ctxscope_home(upstream: FakeUpstream, ctxscope_home: Path) -> None:
    with ProxyServer([], upstream=upstream.url):
        pass
    confdir = ctxscope_home / "mitmproxy"
    assert (confdir / "mitmproxy-ca-cert.pem").exists()
    assert stat.S_IMODE(confdir.stat().st_mode) == 0o700
    assert stat.S_IMODE((confdir / "mitmproxy-ca.pem").stat().st_mode) & 0o077 == 0

"""Forward mode: an HTTPS proxy intercepting TLS with ctxscope's own CA, toward a self-signed upstream."""

from __future__ import annotations

import stat
from pathlib import Path

import httpx
import pytest

from ctxscope.proxy.forward import client_env_lines, ensure_ca
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, capture_proxy
from ctxscope.proxy.testing.tls import self_signed_cert


def test_forward_proxy_intercepts_tls_and_records(tmp_path: Path) -> None:
    confdir = tmp_path / "mitm"
    ca = ensure_ca(confdir)
    assert ca.name == "mitmproxy-ca-cert.pem" and ca.exists()
    assert stat.S_IMODE(confdir.stat().st_mode) == 0o700
    assert stat.S_IMODE((confdir / "mitmproxy-ca.pem").stat().st_mode) == 0o600
    assert ensure_ca(confdir) == ca  # idempotent: the same CA next time
    cert, key = self_signed_cert(tmp_path / "upstream-tls")
    path = tmp_path / "forward.jsonl"
    with FakeUpstream(tls=(cert, key)) as upstream:
        assert upstream.url.startswith("https://")
        with capture_proxy(None, path, mode="forward", confdir=confdir, ssl_insecure=True) as capture:
            with httpx.Client(proxy=capture.url, verify=str(ca), timeout=20) as client:
                r = client.post(f"{upstream.url}/v1/responses", json={"model": "gpt-forward", "input": "x"})
                assert r.status_code == 200 and "response.completed" in r.text
                assert client.get(f"{upstream.url}/v1/models").status_code == 200
            # Without trusting ctxscope's CA the client refuses the intercepted connection.
            with httpx.Client(proxy=capture.url, timeout=20) as untrusting:
                with pytest.raises(httpx.ConnectError):
                    untrusting.get(f"{upstream.url}/v1/models")
            capture.wait_for(2)
            lines = client_env_lines(capture.url, ca, shell="sh")
    exchanges = sorted(read_recording(path).exchanges, key=lambda e: e.id)
    responses = [e for e in exchanges if e.endpoint == "responses"]
    assert len(responses) == 1
    assert responses[0].url == f"{upstream.url}/v1/responses"
    assert responses[0].request_body == {"model": "gpt-forward", "input": "x"}
    assert responses[0].response is not None and responses[0].response["status"] == "completed"
    assert any(e.endpoint == "models" and e.status == 200 for e in exchanges)
    assert lines[:3] == [
        f"export HTTPS_PROXY={capture.url}",
        f"export SSL_CERT_FILE={ca}",
        f"export CODEX_CA_CERTIFICATE={ca}",
    ]

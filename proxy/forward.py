"""Forward-mode set-up: the interception CA in ctxscope's own confdir, the lines clients need, and the
environment `ctxscope run` gives the command it starts.

mitmproxy creates its CA in the confdir on first use; `ensure_ca` does that ahead of the proxy so the
path can be printed before anything connects, and makes sure only the user can read the private key.
"""

from __future__ import annotations

import ipaddress
import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from mitmproxy import certs

__all__ = ["CA_CERT_NAME", "child_environment", "client_env_lines", "ensure_ca"]

CA_BASENAME = "mitmproxy"
CA_CERT_NAME = f"{CA_BASENAME}-ca-cert.pem"
# Files holding the CA private key (mitmproxy writes them with a 077 umask; we re-check every start).
_KEY_FILES = (f"{CA_BASENAME}-ca.pem", f"{CA_BASENAME}-ca.p12")
KEY_SIZE = 2048


def ensure_ca(confdir: Path) -> Path:
    """Create the CA in `confdir` if missing; return the path of the certificate clients must trust."""
    confdir.mkdir(parents=True, exist_ok=True)
    confdir.chmod(0o700)
    certs.CertStore.from_store(confdir, CA_BASENAME, KEY_SIZE)
    for name in _KEY_FILES:
        key = confdir / name
        if key.exists():
            key.chmod(0o600)
    return confdir / CA_CERT_NAME


def client_env_lines(proxy_url: str, ca_path: Path, *, shell: str | None = None) -> list[str]:
    """The environment lines that send common clients through the proxy and make them trust its CA.

    HTTPS_PROXY: httpx/openai-python, curl, the Codex CLI. SSL_CERT_FILE: OpenSSL-based clients.
    CODEX_CA_CERTIFICATE: the Codex CLI. NODE_EXTRA_CA_CERTS: Node.js clients.
    """
    ca = str(ca_path)
    values = [
        ("HTTPS_PROXY", proxy_url),
        ("SSL_CERT_FILE", ca),
        ("CODEX_CA_CERTIFICATE", ca),
        ("NODE_EXTRA_CA_CERTS", ca),
    ]
    windows = (shell or ("cmd" if os.name == "nt" else "sh")) == "cmd"
    if windows:
        return [f"set {name}={value}" for name, value in values]
    return [f"export {name}={shlex.quote(value)}" for name, value in values]


def _is_loopback_entry(entry: str) -> bool:
    """True for a NO_PROXY entry naming this machine (`localhost`, `127.0.0.1:8080`, `[::1]`, ...)."""
    host = entry.strip().lower()
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    host = host.lstrip("*.").split("/", 1)[0]
    if host in ("localhost", "localhost.localdomain") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def child_environment(
    proxy_url: str, ca_path: Path | None, base: Mapping[str, str], *, base_url: str | None = None
) -> dict[str, str]:
    """The environment of a command run behind the proxy (`ctxscope run`).

    Forward mode (`ca_path` given): every proxy variable points at the proxy (both spellings, which
    curl, Python, Node and Rust clients read between them), loopback is taken out of NO_PROXY (so a local
    model server is recorded too), and the interception CA is trusted by Rust clients such as Codex
    (CODEX_CA_CERTIFICATE, SSL_CERT_FILE), Node (NODE_EXTRA_CA_CERTS) and Python (REQUESTS_CA_BUNDLE,
    SSL_CERT_FILE). Reverse mode (`base_url` given): OPENAI_BASE_URL, which the OpenAI SDKs read.
    """
    env = dict(base)
    if ca_path is None:
        if base_url is not None:
            env["OPENAI_BASE_URL"] = base_url
        return env
    ca = str(ca_path)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        env[name] = proxy_url
    for name in ("ALL_PROXY", "all_proxy"):
        env.pop(name, None)  # a SOCKS proxy set here would take traffic around the recording proxy
    for name in ("NO_PROXY", "no_proxy"):
        kept = [e for e in env.get(name, "").split(",") if e.strip() and not _is_loopback_entry(e)]
        if kept:
            env[name] = ",".join(kept)
        else:
            env.pop(name, None)
    for name in ("SSL_CERT_FILE", "CODEX_CA_CERTIFICATE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE"):
        env[name] = ca
    return env

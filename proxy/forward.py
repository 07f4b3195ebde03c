"""Forward-mode set-up: the interception CA in ctxscope's own confdir and the lines clients need.

mitmproxy creates its CA in the confdir on first use; `ensure_ca` does that ahead of the proxy so the
path can be printed before anything connects, and makes sure only the user can read the private key.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from mitmproxy import certs

__all__ = ["CA_CERT_NAME", "ensure_ca", "client_env_lines"]

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

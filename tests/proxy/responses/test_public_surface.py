"""`ctxscope.proxy.responses` says what it offers, and it stays pure (no mitmproxy, no I/O packages)."""

from __future__ import annotations

import subprocess
import sys

import ctxscope.proxy.responses


def test_every_exported_name_resolves() -> None:
    for name in ctxscope.proxy.responses.__all__:
        assert getattr(ctxscope.proxy.responses, name) is not None, name


def test_the_toolkit_does_not_import_mitmproxy_or_the_store() -> None:
    code = (
        "import sys, ctxscope.proxy.responses; "
        "assert 'mitmproxy' not in sys.modules, 'mitmproxy imported'; "
        "assert 'ctxscope.proxy.store' not in sys.modules, 'ctxscope.proxy.store imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)

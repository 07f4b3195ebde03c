"""The proxy package says what it offers: every name in __all__ resolves, and nothing else is promised."""

from __future__ import annotations

import subprocess
import sys

from ctxscope import proxy
from tests.lazy_exports_support import lazy_names, type_checking_imports


def test_every_exported_name_resolves() -> None:
    for name in proxy.__all__:
        assert getattr(proxy, name) is not None, name
    assert sorted(dir(proxy)) == sorted(proxy.__all__)


def test_type_checkers_see_the_lazy_names_where_they_load_from() -> None:
    assert type_checking_imports("ctxscope.proxy") == lazy_names("ctxscope.proxy")


def test_reading_a_recording_does_not_import_mitmproxy() -> None:
    code = (
        "import sys, proxy; proxy.read_recording; assert 'mitmproxy' not in sys.modules, 'mitmproxy imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_registering_the_commands_does_not_import_mitmproxy() -> None:
    # `ctxscope --help` and `ctxscope info` must not pay the second mitmproxy takes to import.
    code = (
        "import sys, typer, ctxscope.proxy.capture_cli, ctxscope.proxy.replay.cli, ctxscope.proxy.store.cli\n"
        "for m in (ctxscope.proxy.capture_cli, ctxscope.proxy.replay.cli, ctxscope.proxy.store.cli):\n"
        "    m.register(typer.Typer())\n"
        "assert 'mitmproxy' not in sys.modules, 'mitmproxy imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)

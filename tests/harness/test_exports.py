"""The harness's public surface is deliberate: pin what each package exports (httpx-style)."""

from __future__ import annotations

import importlib

import pytest

from ctxscope import harness
from tests.lazy_exports_support import lazy_names, type_checking_imports

EXPECTED = {
    "ctxscope.harness": {
        "Agent",
        "AgentOptions",
        "AgentRuntime",
        "HarnessConfig",
        "Provider",
        "ResponsesClient",
        "SessionStore",
        "TurnRequest",
        "TurnResult",
        "build_request",
        "load_config",
        "make_provider",
    },
    "ctxscope.harness.modes": {"DEFAULT_MODE_TEXT", "AgentMode", "CurrentMode", "DefaultMode", "EndStep"},
    "ctxscope.harness.session": {
        "ENTRY_TYPES",
        "WITHHELD",
        "Credentials",
        "ResumedSession",
        "SessionEntry",
        "SessionStore",
        "new_session_id",
    },
    "ctxscope.harness.providers": {
        "CHATGPT_BASE_URL",
        "OPENAI_BASE_URL",
        "ApiKeyProvider",
        "ChatGptProvider",
        "Provider",
        "ScriptProvider",
        "jwt_expiry",
        "make_provider",
    },
}


@pytest.mark.parametrize("module", sorted(EXPECTED))
def test_exported_members(module: str) -> None:
    mod = importlib.import_module(module)
    assert set(mod.__all__) == EXPECTED[module]
    for name in mod.__all__:
        assert getattr(mod, name) is not None


def test_wire_exports_resolve() -> None:
    wire = importlib.import_module("ctxscope.harness.wire")
    assert {"parse_item", "parse_event", "to_wire", "ResponseStream", "UnknownItem"} <= set(wire.__all__)
    assert all(hasattr(wire, name) for name in wire.__all__)


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        harness.not_a_thing  # noqa: B018


def test_lazy_names_are_typed_for_users() -> None:
    # `from harness import Agent` is the real class to mypy and editors, not `Any` from __getattr__.
    assert type_checking_imports("ctxscope.harness") == lazy_names("ctxscope.harness")
    assert set(lazy_names("ctxscope.harness")) == set(harness.__all__)

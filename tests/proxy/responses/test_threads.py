"""thread_hint: the one definition `ctxscope info` and the inspector share."""

from __future__ import annotations

from ctxscope.proxy.responses import thread_hint


def test_headers_come_first_then_client_metadata_then_prompt_cache_key() -> None:
    body = {"client_metadata": {"thread_id": "meta-thread"}, "prompt_cache_key": "cache-key"}
    assert thread_hint({"Session_Id": "sess-1"}, body) == "sess-1"
    assert thread_hint({"x-other": "v"}, body) == "meta-thread"
    assert thread_hint({}, {"client_metadata": {"session_id": "s"}, "prompt_cache_key": "k"}) == "s"
    assert thread_hint({}, {"prompt_cache_key": "cache-key"}) == "cache-key"


def test_no_hint() -> None:
    assert thread_hint({"thread-id": ""}, {"prompt_cache_key": ""}) is None
    assert thread_hint({}, None) is None
    assert thread_hint({}, {"client_metadata": "not a dict", "prompt_cache_key": 3}) is None

"""`ResponsesClient` against a real local upstream (`FakeUpstream`): streaming, retries, errors."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxscope.harness.client import ResponsesClient
from ctxscope.harness.config import RetrySettings
from ctxscope.harness.errors import StreamError, UpstreamError
from ctxscope.harness.providers.custom import custom_provider
from ctxscope.harness.request import build_request
from ctxscope.harness.wire import FunctionCall, MessageItem, ReasoningItem
from ctxscope.proxy.testing import (
    FakeUpstream,
    JsonReply,
    SseReply,
    function_call,
    reasoning,
    response_stream,
    text_message,
)

FAST = RetrySettings(max_retries=2, backoff_base=0.001, backoff_max=0.002, idle_timeout=10.0)


@pytest.fixture
def client(
    upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[ResponsesClient, list[float]]]:
    monkeypatch.setenv("T_KEY", "sk-test-0123456789abcdefghij")
    provider = custom_provider("local", {"base_url": f"{upstream.url}/v1", "env_key": "T_KEY"})
    slept: list[float] = []
    with ResponsesClient(provider, retry=FAST, sleep=slept.append) as c:
        yield c, slept


def _request() -> object:
    return build_request(model="m", instructions="i", input_items=[], tools=[], session_id="s", turn_id="t")


def test_streams_typed_items(client: tuple[ResponsesClient, list[float]], upstream: FakeUpstream) -> None:
    c, _ = client
    upstream.reply(
        SseReply(response_stream(reasoning("hm"), text_message("hello"), function_call("f", {"a": 1})))
    )
    seen: list[object] = []
    result = c.stream(_request(), on_event=seen.append)  # type: ignore[arg-type]
    assert [type(i) for i in result.items] == [ReasoningItem, MessageItem, FunctionCall]
    assert result.items[1].text() == "hello"
    assert result.response.usage is not None and result.response.usage.total_tokens == 15
    assert len(seen) > 5
    (req,) = upstream.requests
    assert (
        req.path == "/v1/responses" and req.headers["authorization"] == "Bearer sk-test-0123456789abcdefghij"
    )
    assert req.json()["model"] == "m"


def test_429_honours_retry_after(client: tuple[ResponsesClient, list[float]], upstream: FakeUpstream) -> None:
    c, slept = client
    upstream.reply(
        JsonReply(
            {"error": {"message": "slow", "code": "rate_limit_exceeded"}},
            status=429,
            headers={"retry-after": "0.25"},
        ),
        SseReply(response_stream(text_message("ok"))),
    )
    result = c.stream(_request())  # type: ignore[arg-type]
    assert result.attempts == 2 and slept == [0.25]
    assert len(upstream.requests) == 2


def test_5xx_backs_off_then_gives_up(
    client: tuple[ResponsesClient, list[float]], upstream: FakeUpstream
) -> None:
    c, slept = client
    upstream.reply(*[JsonReply({"error": {"message": "boom"}}, status=503)] * 3)
    with pytest.raises(UpstreamError, match=r"HTTP 503.*gave up after 3 attempts"):
        c.stream(_request())  # type: ignore[arg-type]
    assert len(slept) == 2 and all(0 < s <= 0.002 * 1.2 for s in slept)


def test_dropped_stream_then_success(
    client: tuple[ResponsesClient, list[float]], upstream: FakeUpstream
) -> None:
    c, _ = client
    events = response_stream(text_message("whole answer"))
    upstream.reply(SseReply(events, cut_after=3), SseReply(events))
    result = c.stream(_request())  # type: ignore[arg-type]
    assert result.items[0].text() == "whole answer" and result.attempts == 2


def test_stream_without_completed_is_an_error(
    client: tuple[ResponsesClient, list[float]], upstream: FakeUpstream
) -> None:
    c, _ = client
    # A server that ends the body cleanly but never sends response.completed.
    events = [e for e in response_stream(text_message("x")) if e["type"] != "response.completed"]
    upstream.reply(*[SseReply(events)] * 3)
    with pytest.raises(StreamError, match="closed before response.completed"):
        c.stream(_request())  # type: ignore[arg-type]


def test_idle_stream_times_out(upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = custom_provider("local", {"base_url": f"{upstream.url}/v1"})
    upstream.reply(SseReply(response_stream(text_message("x")), stall_after=2))
    retry = RetrySettings(max_retries=0, idle_timeout=0.3)
    with ResponsesClient(provider, retry=retry) as c, pytest.raises(StreamError, match="idle timeout"):
        c.stream(_request())  # type: ignore[arg-type]


def test_bad_key_names_the_variable(
    client: tuple[ResponsesClient, list[float]], upstream: FakeUpstream
) -> None:
    c, _ = client
    upstream.reply(JsonReply({"error": {"message": "bad key", "code": "invalid_api_key"}}, status=401))
    with pytest.raises(UpstreamError, match="HTTP 401.*T_KEY"):
        c.stream(_request())  # type: ignore[arg-type]
    assert len(upstream.requests) == 1  # an API key cannot be refreshed: no retry


@pytest.mark.parametrize(
    ("status", "code", "pattern"),
    [
        (400, "context_length_exceeded", "context window"),
        (429, "insufficient_quota", "billing"),
        (400, "invalid_request_error", r"HTTP 400, invalid_request_error\): nope"),
    ],
)
def test_errors_say_what_to_do(
    client: tuple[ResponsesClient, list[float]], upstream: FakeUpstream, status: int, code: str, pattern: str
) -> None:
    c, slept = client
    upstream.reply(JsonReply({"error": {"message": "nope", "code": code}}, status=status))
    with pytest.raises(UpstreamError, match=pattern):
        c.stream(_request())  # type: ignore[arg-type]
    assert slept == []


def test_failed_event_overloaded_is_retried(
    client: tuple[ResponsesClient, list[float]], upstream: FakeUpstream
) -> None:
    c, _ = client
    upstream.reply(
        SseReply(response_stream(failed=("server_is_overloaded", "busy"))),
        SseReply(response_stream(text_message("ok"))),
    )
    assert c.stream(_request()).attempts == 2  # type: ignore[arg-type]


def test_transport_failure_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # httpx errors outside the connect/read/drop family (here: a scheme it cannot speak) still
    # become an UpstreamError the CLI prints as one line.
    monkeypatch.setenv("T_KEY", "sk-test-0123456789abcdefghij")
    provider = custom_provider("local", {"base_url": "http://127.0.0.1:9/v1", "env_key": "T_KEY"})
    with ResponsesClient(provider, base_url="nope://127.0.0.1:9/v1", retry=FAST) as c:
        with pytest.raises(StreamError, match="UnsupportedProtocol"):
            c.stream(_request())  # type: ignore[arg-type]


def test_backoff_grows_and_is_capped() -> None:
    provider = custom_provider("x", {"base_url": "http://127.0.0.1:9/v1"})
    with ResponsesClient(provider, retry=RetrySettings(backoff_base=1.0, backoff_max=4.0)) as c:
        delays = [c.backoff(n) for n in range(5)]
    assert 0.8 <= delays[0] <= 1.2 and 1.6 <= delays[1] <= 2.4 and all(d <= 4.8 for d in delays)

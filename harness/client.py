"""Stream one Responses request over HTTP/SSE, with retries a person does not have to think about.

Retried (exponential backoff with jitter, `Retry-After` honoured): HTTP 429 (except
`insufficient_quota`), 5xx, connection failures, an idle stream (no bytes for `idle_timeout`) and a
stream that drops before `response.completed`. A 401 first asks the provider to refresh its
credentials, once. Everything else becomes an `UpstreamError` whose message says what to do.

The client never mocks or re-implements the SSE fold: bytes go into `ctxscope.harness.wire.ResponseStream`.
It takes an optional `httpx` transport so an in-process transport can stand in for the network.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from ctxscope.harness.config import RetrySettings
from ctxscope.harness.errors import StreamError, UpstreamError
from ctxscope.harness.providers.base import Provider
from ctxscope.harness.request import TurnRequest
from ctxscope.harness.wire.stream import ResponseStream
from ctxscope.harness.wire.types import ResponseObject
from ctxscope.proxy.responses.vocabulary import TerminalEvent

__all__ = ["ResponsesClient", "StreamResult"]

_RETRYABLE_CODES = {
    "server_is_overloaded",
    "server_error",
    "rate_limit_exceeded",
    "slow_down",
    "internal_error",
    "overloaded",
}
_MAX_RETRY_AFTER_S = 120.0
DEFAULT_RETRY = RetrySettings()


@dataclass
class StreamResult:
    """A completed response: the folded object, its typed output items, response headers."""

    response: ResponseObject
    items: list[Any]
    headers: dict[str, str] = field(default_factory=dict)
    attempts: int = 1


def _error_fields(payload: Any) -> tuple[str | None, str | None]:
    """(code, message) from an OpenAI-style error body (`{"error": {...}}`) or a failed response."""
    err = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(err, dict):
        code = err.get("code") or err.get("type")
        return (str(code) if code else None), (str(err["message"]) if err.get("message") else None)
    if isinstance(payload, dict) and (payload.get("code") or payload.get("message")):
        return payload.get("code"), payload.get("message")
    return None, None


def _retry_after(headers: httpx.Headers) -> float | None:
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue  # an HTTP date: fall back to our own backoff
    return None


class _Retryable(UpstreamError):
    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, status=status, code=code, retryable=True)
        self.retry_after = retry_after


class ResponsesClient:
    """POSTs `{base_url}/responses` and folds the SSE answer; one instance per session."""

    def __init__(
        self,
        provider: Provider,
        *,
        base_url: str | None = None,
        retry: RetrySettings = DEFAULT_RETRY,
        transport: httpx.BaseTransport | None = None,
        notice: Callable[[str], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.provider = provider
        self.base_url = (base_url or provider.base_url).rstrip("/")
        """Where requests go: the provider's URL, or the capture proxy standing in front of it."""
        self.retry = retry
        self._notice = notice or (lambda _msg: None)
        self._sleep = sleep
        timeout = httpx.Timeout(
            connect=retry.connect_timeout,
            read=retry.idle_timeout,
            write=retry.connect_timeout,
            pool=retry.connect_timeout,
        )
        # trust_env=False: a capture proxy is wired explicitly; ambient HTTP(S)_PROXY would bypass it.
        self._http = httpx.Client(timeout=timeout, transport=transport, trust_env=False)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ResponsesClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def backoff(self, attempt: int) -> float:
        """Delay before retry number `attempt` (0-based): base·2^attempt, capped, ±20 % jitter."""
        delay = min(float(self.retry.backoff_max), float(self.retry.backoff_base) * 2.0**attempt)
        return float(delay * (0.8 + 0.4 * random.random()))

    def stream(self, request: TurnRequest, on_event: Callable[[Any], None] | None = None) -> StreamResult:
        """Send `request` until a `response.completed` arrives or the error is not worth retrying."""
        attempt = 0
        refreshed = False
        while True:
            try:
                result = self._attempt(request, on_event)
                result.attempts = attempt + 1
                return result
            except UpstreamError as e:
                if e.status == 401 and not refreshed and self.provider.refresh():
                    refreshed = True
                    continue
                if e.status == 401:
                    raise UpstreamError(
                        f"the backend rejected the credentials (HTTP 401): {self.provider.auth_hint()}",
                        status=401,
                        code=e.code,
                    ) from e
                if not e.retryable:
                    raise
                if attempt >= self.retry.max_retries:
                    cls = StreamError if isinstance(e, StreamError) else UpstreamError
                    raise cls(
                        f"{e} (gave up after {attempt + 1} attempts)", status=e.status, code=e.code
                    ) from e
                hinted = e.retry_after if isinstance(e, _Retryable) else None
                delay = min(hinted, _MAX_RETRY_AFTER_S) if hinted is not None else self.backoff(attempt)
                self._notice(f"{e}; retrying in {delay:.1f}s ({attempt + 1}/{self.retry.max_retries})")
                self._sleep(delay)
                attempt += 1

    def compact(self, request: TurnRequest) -> list[dict[str, Any]]:
        """`POST {base_url}/responses/compact` (remote compaction): the items that replace the history.

        One attempt: a failed compaction leaves the history as it was, and the caller says so."""
        headers = {**request.headers, **self.provider.headers(), "Accept": "application/json"}
        url = f"{self.base_url}/responses/compact"
        try:
            resp = self._http.post(url, json=request.body, headers=headers)
        except (httpx.TransportError, httpx.InvalidURL) as e:
            raise StreamError(f"request to {url} failed ({e.__class__.__name__})") from e
        if resp.status_code != 200:
            raise self._status_error(resp)
        try:
            output = resp.json().get("output")
        except (ValueError, AttributeError):
            output = None
        if not isinstance(output, list):
            return []
        return [i for i in output if isinstance(i, dict)]

    def _attempt(self, request: TurnRequest, on_event: Callable[[Any], None] | None) -> StreamResult:
        headers = {**request.headers, **self.provider.headers()}
        url = f"{self.base_url}/responses"
        try:
            with self._http.stream("POST", url, json=request.body, headers=headers) as resp:
                if resp.status_code != 200:
                    resp.read()
                    raise self._status_error(resp)
                return self._consume(resp, on_event)
        except (httpx.ConnectError, httpx.ConnectTimeout) as e:
            raise StreamError(f"cannot reach {self.base_url} ({e.__class__.__name__})", retryable=True) from e
        except httpx.ReadTimeout as e:
            raise StreamError(
                f"no data from the backend for {self.retry.idle_timeout:g}s (idle timeout)", retryable=True
            ) from e
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as e:
            raise StreamError(
                f"the connection dropped before response.completed ({e.__class__.__name__})", retryable=True
            ) from e
        except (httpx.TransportError, httpx.InvalidURL) as e:
            # Anything else httpx raises (a pool or write timeout, a proxy refusing, a URL it cannot
            # use) still reaches the person as one line, not a traceback.
            retryable = isinstance(e, httpx.TimeoutException)
            raise StreamError(
                f"request to {self.base_url} failed ({e.__class__.__name__}: {e})", retryable=retryable
            ) from e

    def _consume(self, resp: httpx.Response, on_event: Callable[[Any], None] | None) -> StreamResult:
        stream = ResponseStream()
        for chunk in resp.iter_bytes():
            for event in stream.feed(chunk):
                if on_event:
                    on_event(event)
        for event in stream.finish():
            if on_event:
                on_event(event)
        if stream.terminal is None:
            raise StreamError("the stream closed before response.completed", retryable=True)
        if not stream.completed:
            raise self._failed_error(stream)
        response = stream.response  # its output is already typed: do not parse the items twice
        return StreamResult(response=response, items=list(response.output), headers=dict(resp.headers))

    def _failed_error(self, stream: ResponseStream) -> UpstreamError:
        snap = stream.snapshot
        if stream.terminal == TerminalEvent.INCOMPLETE:
            reason = (snap.get("incomplete_details") or {}).get("reason") or "unknown reason"
            return UpstreamError(
                f"the response stopped incomplete ({reason}): shorten the task or raise the output limit",
                code=str(reason),
            )
        code, message = _error_fields(snap)
        return _classify(code, message, status=None)

    def _status_error(self, resp: httpx.Response) -> UpstreamError:
        try:
            payload = json.loads(resp.content or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            payload = None
        code, message = _error_fields(payload)
        status = resp.status_code
        if status == 401:
            return UpstreamError("unauthorized", status=401, code=code)
        should_retry = resp.headers.get("x-should-retry", "").lower()
        if should_retry == "false":
            # The server (or the replayer) says retrying cannot help; openai-python honours this too.
            return _classify(code, message or resp.text[:200], status=status)
        if status == 429 and code != "insufficient_quota" or status >= 500:
            what = "rate limited (HTTP 429)" if status == 429 else f"backend error (HTTP {status})"
            return _Retryable(what, status=status, code=code, retry_after=_retry_after(resp.headers))
        return _classify(code, message or (resp.text[:200] if payload is None else None), status=status)


def _classify(code: str | None, message: str | None, *, status: int | None) -> UpstreamError:
    """Turn an API error code into an actionable message."""
    if code == "insufficient_quota":
        return UpstreamError(
            "the account has no quota left (insufficient_quota): check the plan and "
            "billing of this key/account, or use another --provider",
            status=status,
            code=code,
        )
    if code == "context_length_exceeded":
        return UpstreamError(
            "the conversation no longer fits the model's context window "
            "(context_length_exceeded): start a new session (/new) or pick a model "
            "with a larger window",
            status=status,
            code=code,
        )
    if code in _RETRYABLE_CODES:
        return _Retryable(f"the backend is busy ({code})", status=status, code=code)
    where = f"HTTP {status}" if status else TerminalEvent.FAILED.value
    detail = f": {message}" if message else ""
    return UpstreamError(
        f"the backend refused the request ({where}, {code or 'no error code'}){detail}",
        status=status,
        code=code,
    )

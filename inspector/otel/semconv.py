"""Which OpenTelemetry GenAI semantic conventions the export speaks, and the values they define.

The default is semantic conventions v1.41 (the last release with the GenAI conventions in the main
repository, what backends read today); `latest` is the newest form, whose tool-result message part
carries the result in `result` (v1.41: `response`). The rest is shared: ctxscope's own vocabulary
(an answer's status `completed`, `cut`, …) mapped to the conventions' values (finish reasons,
`error.type`), request parameters as recorded, and the names of the attributes (the constants of the
`opentelemetry-semantic-conventions` package; `tests/inspector/test_otel_semconv.py` checks them).
Pure: no OpenTelemetry import.
"""

from __future__ import annotations

from typing import Any, Literal

from ctxscope.inspector.reports.models import AnswerDoc

__all__ = [
    "DEFAULT",
    "SCHEMA_URLS",
    "SEMCONVS",
    "Semconv",
    "error_type",
    "finish_reason",
    "message_finish_reason",
    "request_attributes",
    "time_to_first_chunk",
    "tool_result_field",
]

Semconv = Literal["v1.41", "latest"]
SEMCONVS: tuple[Semconv, ...] = ("v1.41", "latest")
DEFAULT: Semconv = "v1.41"
SCHEMA_URLS: dict[Semconv, str] = {"v1.41": "https://opentelemetry.io/schemas/1.41.0"}
"""The instrumentation scope's schema URL; `latest` names none (the conventions left that repository)."""

OTHER_ERROR = "_OTHER"
"""`error.type`'s value when no better low-cardinality name is known (the conventions' `ErrorTypeValues.OTHER`)."""


def tool_result_field(semconv: Semconv) -> str:
    """The field of a `tool_call_response` message part that carries the tool's result."""
    return "result" if semconv == "latest" else "response"


def _stopped(answer: AnswerDoc, incomplete_reason: str | None) -> str:
    """Why the model stopped, in one word: `stop`, `tool`, `length`, `content_filter` or `error`."""
    if answer.status == "completed":
        return "tool" if any(item.name is not None for item in answer.output) else "stop"
    if answer.status == "incomplete":
        if incomplete_reason == "content_filter":
            return "content_filter"
        if incomplete_reason == "max_output_tokens":
            return "length"
    return "error"  # failed, an HTTP error, a cut stream, a cancelled response


def finish_reason(answer: AnswerDoc, incomplete_reason: str | None) -> str:
    """The span's `gen_ai.response.finish_reasons` entry: OpenAI's words (`stop`, `length`, `tool_calls`,
    `content_filter`), which the conventions' attribute carries as the provider says them, and `error`."""
    stopped = _stopped(answer, incomplete_reason)
    return "tool_calls" if stopped == "tool" else stopped


def message_finish_reason(answer: AnswerDoc, incomplete_reason: str | None) -> str:
    """An output message's `finish_reason`: the JSON schema's enum (`stop`, `length`, `content_filter`,
    `tool_call`, `error`)."""
    stopped = _stopped(answer, incomplete_reason)
    return "tool_call" if stopped == "tool" else stopped


def error_type(
    answer: AnswerDoc, *, response: dict[str, Any] | None, http_status: int | None, transport: str | None
) -> str | None:
    """`error.type` of a request that failed (None when it did not): the API's error code where it gave
    one (`context_length_exceeded`, `rate_limit_exceeded`), else the HTTP status code (`429`), else the
    transport error's kind (`timeout`, `upstream_reset`), else `_OTHER`. An incomplete answer is no
    error: its finish reason says why it stopped."""
    if answer.status in ("completed", "incomplete"):
        return None
    error = (response or {}).get("error")
    if isinstance(error, dict) and isinstance(error.get("code"), str) and error["code"]:
        return str(error["code"])
    if http_status is not None and http_status >= 400:
        return str(http_status)
    if transport:
        return transport
    return OTHER_ERROR


_NUMERIC = {
    "temperature": "gen_ai.request.temperature",
    "top_p": "gen_ai.request.top_p",
    "max_output_tokens": "gen_ai.request.max_tokens",
}
_OUTPUT_TYPES = {"text": "text", "json_object": "json", "json_schema": "json"}


def request_attributes(body: dict[str, Any]) -> dict[str, str | bool | int | float]:
    """The request parameters the recorded body carries, under the conventions' names (a parameter the
    client did not send is left out: the backend's default is not known here)."""
    out: dict[str, str | bool | int | float] = {}
    for key, name in _NUMERIC.items():
        value = body.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[name] = value
    if isinstance(body.get("stream"), bool):
        out["gen_ai.request.stream"] = body["stream"]
    text = body.get("text")
    kind = (text.get("format") or {}).get("type") if isinstance(text, dict) else None
    if isinstance(kind, str) and kind in _OUTPUT_TYPES:
        out["gen_ai.output.type"] = _OUTPUT_TYPES[kind]
    if isinstance(body.get("service_tier"), str):
        out["openai.request.service_tier"] = body["service_tier"]
    reasoning = body.get("reasoning")
    if isinstance(reasoning, dict) and isinstance(reasoning.get("effort"), str):
        out["ctxscope.request.reasoning.effort"] = reasoning["effort"]  # the conventions have no name for it
    return out


def time_to_first_chunk(sse_first_ms: float | None) -> float | None:
    """`gen_ai.response.time_to_first_chunk` in seconds, for a streamed answer (None otherwise)."""
    return None if sse_first_ms is None else round(sse_first_ms / 1000.0, 6)

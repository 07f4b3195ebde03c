"""`ctxscope otel` speaks the GenAI semantic conventions, checked against the conventions' own package.

A recording made through the real recording proxy by a real HTTP client holds the outcomes a trace
must tell apart: a plain answer (with temperature, top_p, max_output_tokens and a JSON output format),
a tool call (its request carrying a tool result), an answer cut by max_output_tokens, a failure for
the context length and an HTTP 429. Its OTLP/JSON export is read back and every attribute name is
looked up in `opentelemetry-semantic-conventions` (the constants, none of them deprecated there), the
enumerated values in its enums; finish reasons and `error.type` are the conventions' values, with
ctxscope's status beside them; `--semconv latest` moves a tool result from `response` to `result`.
"""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes, openai_attributes
from opentelemetry.semconv._incubating.attributes.gen_ai_attributes import (
    GenAiOperationNameValues,
    GenAiOutputTypeValues,
    GenAiProviderNameValues,
)
from opentelemetry.semconv.attributes import error_attributes, http_attributes, server_attributes

from ctxscope.proxy.testing import (
    FakeUpstream,
    JsonReply,
    SseReply,
    capture_proxy,
    function_call,
    response_stream,
    text_message,
)
from tests.cli_support import run_cli

MODEL = "gpt-test"
TOOL_RESULT = [
    {"type": "function_call", "call_id": "call_1", "name": "ls", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"},
]
REQUESTS: list[dict[str, Any]] = [
    {
        "input": "plain",
        "temperature": 0.2,
        "top_p": 0.9,
        "max_output_tokens": 256,
        "text": {"format": {"type": "json_object"}},
    },
    {"input": [{"role": "user", "content": "list"}, *TOOL_RESULT]},
    {"input": "long", "max_output_tokens": 5},
    {"input": "too big"},
    {"input": "throttled"},
]
FINISH_REASONS = {"stop", "length", "content_filter", "tool_call", "error"}
"""The output messages' `finish_reason` enum (the conventions' gen-ai-output-messages.json schema)."""


def _constants(*modules: ModuleType) -> tuple[set[str], set[str]]:
    """(attribute names the modules define, those the package retires in the docstring after each)."""
    names: set[str] = set()
    deprecated: set[str] = set()
    for module in modules:
        body = ast.parse(inspect.getsource(module)).body
        for statement, following in zip(body, body[1:], strict=False):
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.value, ast.Constant):
                value = str(statement.value.value)
                names.add(value)
                doc = following.value if isinstance(following, ast.Expr) else None
                said = str(doc.value).strip() if isinstance(doc, ast.Constant) else ""
                # "Deprecated: Moved to the GenAI repository" is every gen_ai name of this release (the
                # conventions moved, the names did not); "Replaced by …" or "Removed" is a retired name
                if said.startswith("Deprecated") and not said.startswith("Deprecated: Moved to"):
                    deprecated.add(value)
    return names, deprecated


def _value(node: dict[str, Any]) -> Any:
    ((kind, value),) = node.items()
    if kind == "arrayValue":
        return [_value(v) for v in value.get("values", [])]
    return int(value) if kind == "intValue" else value


def _attributes(span: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: _value(a["value"]) for a in span.get("attributes", [])}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("semconv") / "outcomes.jsonl"
    with FakeUpstream() as upstream, capture_proxy(upstream.url, path) as capture:
        upstream.reply(
            SseReply(response_stream(text_message('{"ok": true}'), model=MODEL)),
            SseReply(response_stream(function_call("ls", {"path": "."}), model=MODEL)),
            SseReply(response_stream(text_message("a long"), model=MODEL, incomplete="max_output_tokens")),
            SseReply(response_stream(model=MODEL, failed=("context_length_exceeded", "input too long"))),
            JsonReply({"error": {"message": "slow down", "type": "rate_limit"}}, status=429),
        )
        with httpx.Client(timeout=30) as client:
            for body in REQUESTS:
                sent = {"model": MODEL, "stream": body["input"] != "throttled", **body}
                with client.stream("POST", capture.url + "/v1/responses", json=sent) as answer:
                    answer.read()
        capture.wait_for(len(REQUESTS))
    return path


def _export(recording: Path, out: Path, *args: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    done = run_cli("otel", str(recording), "-o", str(out), "--content", "full", *args)
    assert done.returncode == 0, done.stderr
    [resource_spans] = json.loads(out.read_text())["resourceSpans"]
    [scope_spans] = resource_spans["scopeSpans"]
    return scope_spans, scope_spans["spans"]


def test_every_attribute_and_value_is_the_conventions(recording: Path, tmp_path: Path) -> None:
    _, spans = _export(recording, tmp_path / "spans.json")
    roots = [s for s in spans if not s.get("parentSpanId")]  # each request its own thread here
    turns = sorted((s for s in spans if s.get("parentSpanId")), key=lambda s: _attributes(s)["ctxscope.turn"])
    assert len(turns) == len(roots) == len(REQUESTS)
    root = roots[0]
    known, deprecated = _constants(gen_ai_attributes, openai_attributes)
    others, _ = _constants(error_attributes, http_attributes, server_attributes)
    for span in spans:
        attributes = _attributes(span)
        names = [n for n in attributes if not n.startswith("ctxscope.")]
        assert [n for n in names if n not in known | others] == [], span["name"]
        assert [n for n in names if n in deprecated] == [], span["name"]
        assert attributes["gen_ai.operation.name"] in {v.value for v in GenAiOperationNameValues}
        assert attributes["gen_ai.provider.name"] == GenAiProviderNameValues.OPENAI.value
        if "gen_ai.output.type" in attributes:
            assert attributes["gen_ai.output.type"] in {v.value for v in GenAiOutputTypeValues}
    # a recording of a plain HTTP client: the agent is named by its user agent, never a made-up "agent"
    assert _attributes(root)["gen_ai.agent.name"].startswith("python-httpx/")
    assert root["name"] == "invoke_agent " + _attributes(root)["gen_ai.agent.name"]

    plain, tool, cut, too_long, throttled = (_attributes(t) for t in turns)
    assert [a["gen_ai.response.finish_reasons"] for a in (plain, tool, cut, too_long, throttled)] == [
        ["stop"],
        ["tool_calls"],
        ["length"],
        ["error"],
        ["error"],
    ]
    assert [a["ctxscope.answer.status"] for a in (plain, tool, cut, too_long, throttled)] == [
        "completed",
        "completed",
        "incomplete",
        "failed",
        "error",
    ]
    assert [a.get(error_attributes.ERROR_TYPE) for a in (plain, tool, cut, too_long, throttled)] == [
        None,
        None,
        None,
        "context_length_exceeded",
        "429",
    ]
    assert [t["status"].get("code") for t in turns] == [None, None, None, 2, 2]  # STATUS_CODE_ERROR
    for attributes in (plain, tool, cut, too_long, throttled):
        for message in json.loads(attributes["gen_ai.output.messages"]):
            assert message["finish_reason"] in FINISH_REASONS
    # the request parameters as the client sent them
    assert (plain["gen_ai.request.temperature"], plain["gen_ai.request.top_p"]) == (0.2, 0.9)
    assert plain["gen_ai.request.max_tokens"] == 256 and plain["gen_ai.request.stream"] is True
    assert plain["gen_ai.output.type"] == GenAiOutputTypeValues.JSON.value
    assert "gen_ai.request.temperature" not in tool, "a parameter not sent is not reported"
    assert cut["gen_ai.request.max_tokens"] == 5 and throttled["gen_ai.request.stream"] is False
    # time to the first chunk: streamed answers only, in seconds, within the request's duration
    for span, attributes in zip(turns[:4], (plain, tool, cut, too_long), strict=True):
        seconds = (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e9
        assert 0 <= attributes["gen_ai.response.time_to_first_chunk"] <= seconds + 1e-6
    assert "gen_ai.response.time_to_first_chunk" not in throttled


def test_v1_41_says_response_and_latest_says_result_for_a_tool_result(recording: Path, tmp_path: Path) -> None:
    parts = {}
    for semconv in ("v1.41", "latest"):
        scope, spans = _export(recording, tmp_path / f"{semconv}.json", "--semconv", semconv)
        [tool] = [s for s in spans if _attributes(s).get("ctxscope.turn") == 2]
        messages = json.loads(_attributes(tool)["gen_ai.input.messages"])
        [parts[semconv]] = [p for m in messages for p in m["parts"] if p["type"] == "tool_call_response"]
        assert scope["scope"]["name"] == "ctxscope" and scope["scope"]["version"]
    assert parts["v1.41"] == {"type": "tool_call_response", "id": "call_1", "response": "a.txt"}
    assert parts["latest"] == {"type": "tool_call_response", "id": "call_1", "result": "a.txt"}
    bad = run_cli("otel", str(recording), "-o", str(tmp_path / "x.json"), "--semconv", "v9")
    assert bad.returncode == 2 and "--semconv" in bad.stderr


def test_the_local_path_is_sent_only_when_asked(recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "spans.json"
    _export(recording, out)
    assert str(recording.parent) not in out.read_text()
    _export(recording, out, "--absolute-paths")
    [resource] = json.loads(out.read_text())["resourceSpans"]
    assert _attributes(resource["resource"])["ctxscope.recording"] == str(recording.resolve())

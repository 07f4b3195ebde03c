"""`ctxscope otel`: a real recording (the tour: every mechanism) exported through the OpenTelemetry SDK
to a real OTLP/HTTP receiver on loopback, decoded with the OTLP protobuf definitions, and to OTLP/JSON."""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ctxscope.proxy.testing import FakeUpstream, RawReply
from ctxscope.tour import run_tour
from tests.cli_support import run_cli


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tour")
    capture = root / "tour.jsonl"
    run_tour(root / "work", capture, say=lambda text: print(text, file=sys.stderr))
    return capture


def _attributes(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        which = kv.value.WhichOneof("value")
        value = getattr(kv.value, which)
        out[kv.key] = [getattr(v, v.WhichOneof("value")) for v in value.values] if which == "array_value" else value
    return out


def _received(upstream: FakeUpstream) -> list[Any]:
    spans = []
    for request in upstream.requests:
        message = ExportTraceServiceRequest.FromString(request.body)
        spans += [s for rs in message.resource_spans for ss in rs.scope_spans for s in ss.spans]
    return spans


def test_a_thread_is_a_trace_and_each_request_a_genai_span(recording: Path) -> None:
    with FakeUpstream() as collector:
        collector.reply(RawReply(b"", content_type="application/x-protobuf"))
        result = run_cli(
            "otel",
            str(recording),
            "--endpoint",
            f"{collector.url}/v1/traces",
            "--header",
            "Authorization=Basic abc",
        )
        [request] = collector.requests
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"exported 17 spans in 1 trace(s) to {collector.url}/v1/traces"
    assert request.path == "/v1/traces" and request.headers["authorization"] == "Basic abc"
    assert request.headers["content-type"] == "application/x-protobuf"
    [resource_spans] = ExportTraceServiceRequest.FromString(request.body).resource_spans
    [scope_spans] = resource_spans.scope_spans
    assert (scope_spans.scope.name, scope_spans.scope.version) == ("ctxscope", version("ctxscope"))
    assert scope_spans.schema_url == "https://opentelemetry.io/schemas/1.41.0"
    # the recording by its name: its local absolute path stays on this machine (--absolute-paths sends it)
    assert _attributes(resource_spans.resource)["ctxscope.recording"] == "tour.jsonl"
    assert str(recording).encode() not in request.body
    spans = scope_spans.spans
    root, *turns = spans
    assert _attributes(root)["ctxscope.recording"] == "tour.jsonl"
    assert root.name == "invoke_agent ctxscope agent" and len(turns) == 16
    assert {s.trace_id for s in spans} == {root.trace_id} and all(t.parent_span_id == root.span_id for t in turns)
    assert root.start_time_unix_nano == turns[0].start_time_unix_nano
    assert root.end_time_unix_nano == max(t.end_time_unix_nano for t in turns)
    first, cwd_change, switch = (_attributes(turns[i]) for i in (0, 3, 6))
    assert turns[0].name == "chat gpt-5-codex" and turns[6].name == "chat gpt-5-mini"
    assert first["gen_ai.operation.name"] == "chat" and first["gen_ai.provider.name"] == "openai"
    assert first["gen_ai.usage.input_tokens"] == 2400 and first["gen_ai.usage.output_tokens"] == 42
    # the conventions' finish reason (the answer is a tool call); ctxscope's status beside it
    assert first["gen_ai.response.finish_reasons"] == ["tool_calls"] and first["ctxscope.answer.status"] == "completed"
    assert first["ctxscope.change.kind"] == "initial"
    assert "gen_ai.input.messages" not in first, "content is opt-in"
    # paths under the first working directory as ./…, as `ctxscope diff` writes them: no local path leaves
    repo = recording.parent / "work" / "repo"
    assert "cwd . → ./pkg" in cwd_change["ctxscope.world_state.changes"]
    described = [v for s in turns for k, v in _attributes(s).items() if k.startswith("ctxscope.")]
    assert not any(str(repo) in str(value) for value in described)
    assert "model gpt-5-codex → gpt-5-mini" in switch["ctxscope.world_state.changes"]
    plan = turns[7]
    assert [(e.name, _attributes(e)["ctxscope.sentence"]) for e in plan.events] == [
        ("ctxscope.mode_change", "mode default → plan")
    ]
    last = _attributes(turns[-1])
    assert last["ctxscope.change.kind"] == "compaction" and last["ctxscope.compaction"].startswith("compaction (")


def test_the_same_recording_exports_the_same_ids(recording: Path, tmp_path: Path) -> None:
    with FakeUpstream() as collector:
        for _ in range(2):
            collector.reply(RawReply(b"", content_type="application/x-protobuf"))
            assert run_cli("otel", str(recording), "--endpoint", f"{collector.url}/v1/traces").returncode == 0
        first, second = (ExportTraceServiceRequest.FromString(r.body) for r in collector.requests)
    ids = [[(s.trace_id, s.span_id) for s in m.resource_spans[0].scope_spans[0].spans] for m in (first, second)]
    assert ids[0] == ids[1] and len(set(ids[0])) == 17, "a re-export replaces, never duplicates"


def test_otlp_json_file_with_content(recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "spans.json"
    result = run_cli("otel", str(recording), "-o", str(out), "--content", "full")
    assert result.returncode == 0, result.stderr
    assert out.stat().st_mode & 0o777 == 0o600
    document = json.loads(out.read_text())
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert len(spans) == 17 and len(spans[0]["traceId"]) == 32 and len(spans[0]["spanId"]) == 16
    assert int(spans[0]["traceId"], 16) and spans[1]["parentSpanId"] == spans[0]["spanId"]
    assert spans[1]["kind"] == 3  # CLIENT, as an integer in OTLP/JSON
    attributes = {a["key"]: a["value"] for a in spans[1]["attributes"]}
    messages = json.loads(attributes["gen_ai.input.messages"]["stringValue"])
    assert messages[0] == {"role": "system", "parts": [messages[0]["parts"][0]]}
    users = [m["parts"][0]["content"] for m in messages if m["role"] == "user"]
    assert any(text.startswith("Add a greet(name) helper") for text in users)
    assert users[-1].startswith("<skill>\n<name>demo-skill</name>")
    output = json.loads(attributes["gen_ai.output.messages"]["stringValue"])
    assert [p["type"] for p in output[0]["parts"]] == ["reasoning", "tool_call"]
    assert output[0]["parts"][1]["name"] == "exec_command" and output[0]["finish_reason"] == "tool_call"
    assert json.loads(attributes["gen_ai.system_instructions"]["stringValue"])[0]["type"] == "text"


def test_bad_destinations_are_one_line(recording: Path, tmp_path: Path) -> None:
    before = recording.read_bytes()
    nowhere = run_cli("otel", str(recording), env={"OTEL_EXPORTER_OTLP_ENDPOINT": ""})
    assert nowhere.returncode == 2 and "say where the traces go" in nowhere.stderr
    with FakeUpstream() as collector:
        port = collector.port
    refused = run_cli("otel", str(recording), "--endpoint", f"http://127.0.0.1:{port}/v1/traces", "--timeout", "1")
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "did not accept the spans" in refused.stderr, refused.stderr
    bad_header = run_cli("otel", str(recording), "-o", str(tmp_path / "x.json"), "--header", "nokey")
    assert bad_header.returncode == 2 and "--header 'nokey': write NAME=VALUE" in bad_header.stderr
    assert recording.read_bytes() == before


def test_local_paths_only_when_asked(recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "spans.json"
    assert run_cli("otel", str(recording), "-o", str(out), "--absolute-paths").returncode == 0
    [resource_spans] = json.loads(out.read_text())["resourceSpans"]
    resource = {a["key"]: a["value"]["stringValue"] for a in resource_spans["resource"]["attributes"]}
    assert resource["ctxscope.recording"] == str(recording.resolve())
    repo = recording.parent / "work" / "repo"
    assert f"cwd {repo} → {repo / 'pkg'}" in out.read_text()

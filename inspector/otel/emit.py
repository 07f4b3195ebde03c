"""Send `SpanSpec`s through the OpenTelemetry SDK: to an OTLP/HTTP collector, or to an OTLP/JSON file.

The SDK builds the spans (ids, timing, status, resource), so what reaches a backend is what any OTel
instrumentation would send. Ids come from the specs (a re-export replaces rather than duplicates in
backends that key on them), and the spans are collected in memory first, so the export is one call
whose result can be told to the user in one line.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ctxscope.inspector.otel.semconv import DEFAULT, SCHEMA_URLS, Semconv
from ctxscope.inspector.otel.spans import SpanSpec
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.files import write_private
from ctxscope.proxy.version import installed_version

__all__ = ["INSTALL_HINT", "encode_json", "export_otlp", "make_spans"]

INSTALL_HINT = "OpenTelemetry export needs the otel extra: pip install 'ctxscope[otel]'"


def _sdk() -> Any:
    try:
        from opentelemetry.sdk import trace as sdk_trace
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return sdk_trace


def make_spans(
    specs: Sequence[SpanSpec], *, service_name: str, resource: Mapping[str, Any], semconv: Semconv = DEFAULT
) -> list[Any]:
    """The SDK's finished spans (`ReadableSpan`) for `specs` (parents before their children), from the
    instrumentation scope `ctxscope` at the installed version, with the conventions' schema URL."""
    sdk_trace = _sdk()
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.sdk.trace.id_generator import IdGenerator
    from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags

    class SpecIds(IdGenerator):
        """Hands out the ids the next span must have (set before each start_span)."""

        trace_id = 0
        span_id = 0

        def generate_trace_id(self) -> int:
            return self.trace_id

        def generate_span_id(self) -> int:
            return self.span_id

        def is_trace_id_random(self) -> bool:
            return False  # derived from the recording: the W3C "random" flag must not be claimed

    ids = SpecIds()
    provider = sdk_trace.TracerProvider(
        resource=Resource.create({"service.name": service_name, **resource}),
        id_generator=ids,
    )
    collected = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(collected))
    tracer = provider.get_tracer("ctxscope", installed_version(), schema_url=SCHEMA_URLS.get(semconv))
    for spec in specs:
        ids.trace_id, ids.span_id = spec.trace_id, spec.span_id
        context = None
        if spec.parent_id is not None:
            parent = SpanContext(spec.trace_id, spec.parent_id, is_remote=False, trace_flags=TraceFlags(1))
            context = trace.set_span_in_context(NonRecordingSpan(parent))
        span = tracer.start_span(
            spec.name,
            context=context,
            kind=SpanKind.CLIENT if spec.client else SpanKind.INTERNAL,
            attributes=spec.attributes,
            start_time=spec.start_ns,
        )
        for event in spec.events:
            span.add_event(event.name, attributes=event.attributes, timestamp=event.time_ns)
        if spec.error is not None:
            span.set_status(Status(StatusCode.ERROR, spec.error))
        span.end(end_time=spec.end_ns)
    provider.shutdown()
    return list(collected.get_finished_spans())


_ID_FIELDS = frozenset({"traceId", "spanId", "parentSpanId"})


def _hex_ids(node: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping gives base64."""
    if isinstance(node, dict):
        return {
            k: base64.b64decode(v).hex() if k in _ID_FIELDS and isinstance(v, str) else _hex_ids(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_hex_ids(v) for v in node]
    return node


def encode_json(spans: Sequence[Any]) -> str:
    """OTLP/JSON: an ExportTraceServiceRequest as OTLP/HTTP with JSON and the collector's file
    exporter write it (camelCase fields, enums as integers, ids in hex)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    document = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    return json.dumps(_hex_ids(document), indent=1, ensure_ascii=False) + "\n"


@contextmanager
def _quiet_exporter_logs() -> Iterator[None]:
    """The exporter logs each failed attempt with a traceback; the command says it in one line."""
    logger = logging.getLogger("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def export_otlp(
    spans: Sequence[Any],
    *,
    endpoint: str | None = None,
    headers: Mapping[str, str] | None = None,
    out: Path | None = None,
    timeout: float = 10.0,
    inputs: Sequence[Path] = (),
) -> None:
    """Write the spans to `out` (OTLP/JSON) and/or send them to `endpoint` (OTLP/HTTP, protobuf)."""
    if out is not None:
        text = encode_json(spans)
        write_private(out, lambda stream: stream.write(text), inputs=inputs)
    if endpoint is None:
        return
    _sdk()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    exporter = OTLPSpanExporter(endpoint=endpoint, headers=dict(headers or {}), timeout=timeout)
    try:
        with _quiet_exporter_logs():
            result = exporter.export(list(spans))
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]
    if result is not SpanExportResult.SUCCESS:
        raise ConfigError(
            f"the OTLP endpoint {endpoint} did not accept the spans (unreachable, or it answered with an "
            "error): check the URL (an OTLP/HTTP traces endpoint, e.g. http://localhost:4318/v1/traces) "
            "and --header values"
        )

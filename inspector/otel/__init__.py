"""OpenTelemetry export: a recording's threads as traces for Langfuse, Phoenix, Jaeger, Tempo, ….

`recording_spans(analysis)` builds the spans (pure, GenAI semantic conventions plus `ctxscope.*`);
`make_spans` / `export_otlp` run them through the OpenTelemetry SDK (the `otel` extra) to an OTLP/HTTP
endpoint or an OTLP/JSON file. `ctxscope otel` is the command.
"""

from __future__ import annotations

from ctxscope.inspector.otel.spans import ContentMode, SpanEvent, SpanSpec, recording_spans, to_messages

__all__ = ["ContentMode", "SpanEvent", "SpanSpec", "recording_spans", "to_messages"]

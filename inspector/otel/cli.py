"""`ctxscope otel`: export a recording as OpenTelemetry traces (OTLP/HTTP or an OTLP/JSON file)."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ctxscope.proxy.errors import ConfigError

__all__ = ["register"]


class Content(StrEnum):
    none = "none"
    added = "added"
    full = "full"


class SemconvChoice(StrEnum):
    v1_41 = "v1.41"
    latest = "latest"


def _headers(values: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in values:
        name, sep, text = value.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"--header {value!r}: write NAME=VALUE, e.g. --header 'Authorization=Basic …'")
        headers[name.strip()] = text
    return headers


def otel(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    endpoint: Annotated[
        str | None,
        typer.Option(
            "--endpoint",
            help="OTLP/HTTP traces URL (default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or "
            "$OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces).",
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write OTLP/JSON to this file.")] = None,
    header: Annotated[
        list[str] | None, typer.Option("--header", help="NAME=VALUE sent to the endpoint (auth); repeatable.")
    ] = None,
    content: Annotated[
        Content,
        typer.Option(
            "--content", help="Messages on the spans: none, added (each request's new items) or full."
        ),
    ] = Content.none,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds to keep trying the endpoint (retries included).")
    ] = 10.0,
    service_name: Annotated[
        str, typer.Option("--service-name", help="The traces' service.name.")
    ] = "ctxscope",
    semconv: Annotated[
        SemconvChoice,
        typer.Option(
            "--semconv",
            help="GenAI semantic conventions: v1.41 (default), or latest (a tool result's field is `result`).",
        ),
    ] = SemconvChoice.v1_41,
    absolute_paths: Annotated[
        bool,
        typer.Option(
            "--absolute-paths", help="Name the recording by its absolute local path (default: its file name)."
        ),
    ] = False,
) -> None:
    """Export a recording as OpenTelemetry traces: a trace per thread, a span per model request."""
    from ctxscope.inspector.analysis.analyse import analyse_recording
    from ctxscope.inspector.otel.emit import export_otlp, make_spans
    from ctxscope.inspector.otel.spans import recording_spans
    from ctxscope.proxy.files import refuse_same_file

    target = endpoint or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if target is None and os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        target = os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + "/v1/traces"
    if target is None and out is None:
        raise ConfigError(
            "say where the traces go: --endpoint http://HOST:4318/v1/traces "
            "(or OTEL_EXPORTER_OTLP_ENDPOINT), or -o FILE.json"
        )
    if out is not None:
        refuse_same_file(out, [file])  # before any work: `-o REC` would replace the recording
    sent_headers = _headers(header or [])
    analysis = analyse_recording(file)
    specs = recording_spans(
        analysis, content=content.value, semconv=semconv.value, absolute_paths=absolute_paths
    )
    if not specs:
        raise ConfigError(f"{file} has no model requests to export")
    recording = str(file.resolve()) if absolute_paths else file.name  # a trace is read on other machines
    spans = make_spans(
        specs, service_name=service_name, resource={"ctxscope.recording": recording}, semconv=semconv.value
    )
    export_otlp(spans, endpoint=target, headers=sent_headers, out=out, timeout=timeout, inputs=[file])
    traces = len({s.trace_key for s in specs})
    where = " and ".join(w for w in (target, str(out) if out else None) if w)
    print(f"exported {len(specs)} spans in {traces} trace(s) to {where}")


def register(app: typer.Typer) -> None:
    app.command("otel")(otel)

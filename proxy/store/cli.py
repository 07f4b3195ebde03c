"""`ctxscope info` and `ctxscope export`: look inside a recording, or get its data out for jq."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from ..files import refuse_same_file, write_private
from ..model import Exchange
from .reader import read_recording
from .summary import summarise

__all__ = ["register"]


class ExportWhat(StrEnum):
    requests = "requests"
    responses = "responses"
    exchanges = "exchanges"


def _human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def info(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
) -> None:
    """Summarise a recording: exchanges, threads, models, sizes, errors."""
    summary = summarise(read_recording(file))
    if as_json:
        typer.echo(json.dumps(summary.as_dict(), indent=2))
        return
    endpoints = ", ".join(f"{k} {v}" for k, v in sorted(summary.by_endpoint.items())) or "none"
    models = ", ".join(f"{k} ×{v}" for k, v in sorted(summary.models.items())) or "none"
    ratio = (
        f" ({summary.file_bytes / summary.request_bytes:.2f}× the raw request bodies)"
        if summary.request_bytes
        else ""
    )
    hosts = ", ".join(f"{h} {n}" for h, n in sorted(summary.hosts.items(), key=lambda kv: (-kv[1], kv[0])))
    summarised = f"; {summary.summarised} summarised without bodies" if summary.summarised else ""
    lines = [
        f"recording   {summary.path}",
        f"format      {summary.version} written by {summary.tool}",
        f"exchanges   {summary.exchanges:,} ({endpoints}{summarised})",
        f"hosts       {hosts or 'none'}",
        f"threads     {summary.threads}",
        f"models      {models}",
        f"tokens      {summary.input_tokens:,} in, {summary.output_tokens:,} out",
        f"span        {summary.duration_s:.1f} s",
        f"size        {_human_bytes(summary.file_bytes)} on disk, "
        f"{_human_bytes(summary.request_bytes)} of request "
        f"bodies{ratio}, {summary.blobs} stored parts",
        f"errors      {len(summary.errors)}"
        + (f" (and {summary.summarised_errors} in summarised traffic)" if summary.summarised_errors else ""),
    ]
    lines += [f"  {e}" for e in summary.errors[:20]]
    if len(summary.errors) > 20:
        lines.append(f"  … and {len(summary.errors) - 20} more")
    lines += [f"warning     {w}" for w in summary.warnings]
    typer.echo("\n".join(lines))


def _export_value(exchange: Exchange, what: ExportWhat) -> Any:
    if what is ExportWhat.requests:
        if exchange.request_body is not None:
            return exchange.request_body
        return {"$text": exchange.request_text} if exchange.request_text is not None else None
    if what is ExportWhat.responses:
        if exchange.response is not None:
            return exchange.response
        return exchange.response_body
    return exchange.model_dump(mode="json")


def export(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    what: Annotated[
        ExportWhat, typer.Option("--what", help="What to write per exchange.")
    ] = ExportWhat.requests,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write here instead of stdout.")] = None,
) -> None:
    """Write each request body (or response, or exchange) as one JSON line, for jq.

    Bodies are resolved and redacted, in recording order. Exchanges without that part (a GET has no
    request body) are skipped.
    """
    if out is not None:
        refuse_same_file(out, [file])
    recording = read_recording(file)
    for warning in recording.warnings:
        typer.echo(f"warning: {warning}", err=True)

    def write(stream: IO[str]) -> None:
        for exchange in recording.exchanges:
            value = _export_value(exchange, what)
            if value is not None:
                stream.write(json.dumps(value, ensure_ascii=False) + "\n")

    if out is None:
        write(sys.stdout)
    else:  # owner-only, via a temporary file, and never over the recording it reads
        write_private(out, write, inputs=[file])


def register(app: typer.Typer) -> None:
    app.command("info")(info)
    app.command("export")(export)

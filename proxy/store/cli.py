"""`ctxscope export`: get a recording's data out for jq (`ctxscope info` is the inspector's: its
thread count is the analysis's)."""

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

__all__ = ["register"]


class ExportWhat(StrEnum):
    requests = "requests"
    responses = "responses"
    exchanges = "exchanges"


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
    app.command("export")(export)

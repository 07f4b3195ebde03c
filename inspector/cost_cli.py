"""`ctxscope cost`: what each model request of one or more recordings cost, summed per turn, thread,
agent, model and day (the document and its renderings: `cost_report`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from ctxscope.inspector.cost_report import By, Format, cost_document, file_cost_rows, render_csv, render_text

__all__ = ["register"]


def cost(
    files: Annotated[list[Path], typer.Argument(help="ctxscope recordings (.jsonl).")],
    prices: Annotated[
        Path | None,
        typer.Option(
            "--prices",
            help='A TOML price table ([models."NAME"] input, cached_input, output, cache_write; USD per '
            "million tokens) over the genai-prices dataset (default: $CTXSCOPE_PRICES).",
        ),
    ] = None,
    by: Annotated[By, typer.Option("--by", help="Sum per turn, thread, agent, model or day.")] = By.turn,
    fmt: Annotated[Format, typer.Option("--format", help="text, json or csv (one row per request).")] = Format.text,
) -> None:
    """What each model request cost, from its reported usage at per-model prices."""
    from ctxscope.inspector.analysis.cost import dataset_version, default_prices, load_price_file

    table = load_price_file(prices) if prices is not None else default_prices()
    rows = [row for path in files for row in file_cost_rows(path, table)]
    doc = cost_document(rows, table)
    if dataset_version() is None and doc["unpriced"]:
        # the one line naming the extra: the user's table still prices what it names
        print("cost: the genai-prices dataset is not installed: pip install 'ctxscope[cost]'", file=sys.stderr)
    if fmt is Format.json:
        typer.echo(json.dumps(doc, indent=2))
    elif fmt is Format.csv:
        typer.echo(render_csv(doc), nl=False)
    else:
        typer.echo("\n".join(render_text(doc, by)))


def register(app: typer.Typer) -> None:
    app.command("cost")(cost)

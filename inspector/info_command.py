"""`ctxscope info` as a typer command (its help, its errors): `ctxscope.inspector.info.info` does the work.

Apart from `info` itself so that `ctxscope info FILE`, run without typer (`info.run_fast`), never
imports it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ctxscope.inspector.info import info

__all__ = ["info_command", "register"]


def info_command(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
) -> None:
    """Summarise a recording: exchanges, threads and turns, models, sizes, errors."""
    info(file, as_json)


def register(app: typer.Typer) -> None:
    app.command("info")(info_command)

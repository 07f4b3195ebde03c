"""The inspector's commands: `diff` (timeline of what changed and why), `compare` (two recordings
side by side) and `show` (the full context of one request). Wiring only: analysis and rendering
live in `inspector.analysis` and `inspector.reports`.
"""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from inspector.analysis.analyse import analyse_recording
from inspector.analysis.compare import compare_analyses
from inspector.reports import (
    CompareReport,
    DiffReport,
    ShowReport,
    compare_report,
    diff_report,
    render_markdown,
    render_text,
    show_report,
)

__all__ = ["register"]


class Format(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"


FormatOpt = Annotated[
    Format, typer.Option("--format", "-f", help="Output: text, json (ctxscope-report/1) or markdown.")
]
ColorOpt = Annotated[
    bool | None,
    typer.Option("--color/--no-color", help="Force colour on or off (default: on for a terminal)."),
]


def _emit(report: DiffReport | ShowReport | CompareReport, fmt: Format, color: bool | None) -> None:
    doc = report.wire()
    if fmt is Format.json:
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n")
    elif fmt is Format.markdown:
        sys.stdout.write(render_markdown(doc))
    else:
        console = Console(
            force_terminal=color,
            no_color=color is False,
            highlight=False,
            # $COLUMNS when set (rich reads it); a pipe without it gets a wide page, not 80 columns
            width=None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 160,
        )
        render_text(doc, console)


def diff(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    turn: Annotated[
        int | None, typer.Option("--turn", "-t", help="Show turn N against its predecessor in full.")
    ] = None,
    thread: Annotated[
        str | None, typer.Option("--thread", help="Only this thread (T1, T2… or its id).")
    ] = None,
    fmt: FormatOpt = Format.text,
    color: ColorOpt = None,
) -> None:
    """The timeline: per turn its change kind, fragments and world state changed, tools, tokens."""
    _emit(diff_report(analyse_recording(file), turn=turn, thread=thread), fmt, color)


def compare(
    a: Annotated[Path, typer.Argument(help="First recording (A).")],
    b: Annotated[Path, typer.Argument(help="Second recording (B) of the same task.")],
    fmt: FormatOpt = Format.text,
    color: ColorOpt = None,
) -> None:
    """Two recordings of the same task aligned turn by turn: endpoint, headers, defaults, tools, items."""
    _emit(compare_report(compare_analyses(analyse_recording(a), analyse_recording(b))), fmt, color)


def show(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    turn: Annotated[int, typer.Option("--turn", "-t", help="The turn to show (1-based).")],
    raw: Annotated[bool, typer.Option("--raw", help="Print the request body as sent (JSON).")] = False,
    fmt: FormatOpt = Format.text,
    color: ColorOpt = None,
) -> None:
    """The full context of one request as a compact labelled layout."""
    analysis = analyse_recording(file)
    if raw:
        sys.stdout.write(
            json.dumps(analysis.turn(turn).turn.exchange.request_body, indent=2, ensure_ascii=False) + "\n"
        )
        return
    _emit(show_report(analysis, turn), fmt, color)


def register(app: typer.Typer) -> None:
    """Add `diff`, `compare` and `show` to the `ctxscope` app."""
    app.command("diff")(diff)
    app.command("compare")(compare)
    app.command("show")(show)

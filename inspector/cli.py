"""The inspector's commands: `diff` (timeline of what changed and why), `compare` (two recordings
side by side), `show` (the full context of one request) and `inspect` (the TUI). Wiring only:
analysis and rendering live in `ctxscope.inspector.analysis`, `ctxscope.inspector.reports` and `ctxscope.inspector.tui`.
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

from ctxscope.inspector.analysis.analyse import analyse_recording
from ctxscope.inspector.analysis.compare import compare_analyses
from ctxscope.inspector.reports import (
    CompareReport,
    DiffReport,
    ShowReport,
    compare_report,
    diff_report,
    render_markdown,
    render_text,
    show_report,
)
from ctxscope.proxy.store.prefix_list import json_default

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


FullOpt = Annotated[
    bool, typer.Option("--full", help="Print whole texts (added fragments, diffs, the answer), uncut.")
]


def _emit(
    report: DiffReport | ShowReport | CompareReport, fmt: Format, color: bool | None, *, full: bool = False
) -> None:
    if fmt is Format.json:
        doc = report.wire()
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n")
    elif fmt is Format.markdown:
        sys.stdout.write(render_markdown(report))
    else:
        console = Console(
            force_terminal=color,
            no_color=color is False,
            highlight=False,
            # $COLUMNS when set (rich reads it); a pipe without it gets a wide page, not 80 columns
            width=None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 160,
        )
        render_text(report, console, full=full)


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
    full: FullOpt = False,
) -> None:
    """The timeline: per turn its change kind, fragments and world state changed, tools, tokens; with
    --turn, that turn against its predecessor and the answer it got."""
    _emit(diff_report(analyse_recording(file, shared_inputs=True), turn=turn, thread=thread), fmt, color, full=full)


def compare(
    a: Annotated[Path, typer.Argument(help="First recording (A).")],
    b: Annotated[Path, typer.Argument(help="Second recording (B) of the same task.")],
    thread: Annotated[
        str | None,
        typer.Option(
            "--thread",
            help="One thread of each, as diff names them: T1 (or its id) in both, or T1:T2 for A's T1 "
            "against B's T2.",
        ),
    ] = None,
    raw: Annotated[
        bool,
        typer.Option(
            "--raw",
            help="Compare as sent: no paths, ids, dates or volatile metadata normalised (they are by "
            "default, as strict replay normalises them).",
        ),
    ] = False,
    fmt: FormatOpt = Format.text,
    color: ColorOpt = None,
) -> None:
    """Two recordings of the same task aligned turn by turn: endpoint, headers, defaults, tools, items."""
    comparison = compare_analyses(
        analyse_recording(a, shared_inputs=True), analyse_recording(b, shared_inputs=True), thread=thread, raw=raw
    )
    _emit(compare_report(comparison), fmt, color)


def show(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    turn: Annotated[int, typer.Option("--turn", "-t", help="The turn to show (1-based).")],
    raw: Annotated[bool, typer.Option("--raw", help="Print the request body as sent (JSON).")] = False,
    fmt: FormatOpt = Format.text,
    color: ColorOpt = None,
    full: FullOpt = False,
) -> None:
    """The full context of one request as a compact labelled layout, then the answer it got."""
    analysis = analyse_recording(file, shared_inputs=True)
    if raw:
        body = analysis.turn(turn).turn.exchange.request_body
        sys.stdout.write(json.dumps(body, indent=2, ensure_ascii=False, default=json_default) + "\n")
        return
    _emit(show_report(analysis, turn), fmt, color, full=full)


def inspect(
    files: Annotated[
        list[Path] | None,
        typer.Argument(help="A recording; two to compare them; none: the newest in the ctxscope home."),
    ] = None,
    follow: Annotated[
        bool, typer.Option("--follow", help="Tail a recording still being written; new turns appear.")
    ] = False,
    snapshot: Annotated[
        Path | None, typer.Option("--snapshot", help="Render one screen headless to this SVG file and exit.")
    ] = None,
    turn: Annotated[int | None, typer.Option("--turn", "-t", help="Start at turn N (1-based).")] = None,
    view: Annotated[
        str | None,
        typer.Option(
            "--view",
            help="What shows beside the timeline: turn, world, compaction, tokens, composition, cost or agents.",
        ),
    ] = None,
    size: Annotated[str, typer.Option("--size", help="With --snapshot: columns x rows.")] = "120x40",
) -> None:
    """The inspector TUI: walk a recording turn by turn (keys: ? in the app)."""
    from ctxscope.inspector.tui.launch import launch  # Textual loads only for this command

    launch(files or [], follow=follow, snapshot=snapshot, turn=turn, view=view, size=size)


def register(app: typer.Typer) -> None:
    """Add `diff`, `compare`, `show` and `inspect` to the `ctxscope` app."""
    app.command("diff")(diff)
    app.command("compare")(compare)
    app.command("show")(show)
    app.command("inspect")(inspect)

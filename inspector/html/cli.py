"""`ctxscope report FILE -o report.html [--turns A-B]`: the recording as one self-contained HTML page."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from ctxscope.proxy.errors import ConfigError

__all__ = ["parse_turns", "register", "write_report"]


def parse_turns(spec: str, last: int) -> range:
    """`A-B`, `A-` or `N` as the turns they name (1-based, inclusive); a one-line error otherwise."""
    first, sep, end = spec.partition("-")
    try:
        start = int(first)
        stop = (int(end) if end.strip() else last) if sep else start
    except ValueError:
        raise ConfigError(f"--turns {spec!r}: write A-B (e.g. 3-10), A- or N") from None
    if not 1 <= start <= stop <= last:
        raise ConfigError(f"--turns {spec!r}: the recording has turns 1–{last}")
    return range(start, stop + 1)


def write_report(recording: Path, output: Path, *, turns: str | None = None) -> int:
    """Write the report of `recording` to `output` (owner-only); the number of turns shown."""
    from ctxscope.inspector.analysis import analyse_recording
    from ctxscope.inspector.html.build import report_data
    from ctxscope.inspector.html.page import render_page

    if output.exists() and recording.exists() and output.resolve() == recording.resolve():
        raise ConfigError(f"-o {output} is the recording itself; write the report to another file")
    if output.exists() and recording.exists() and os.path.samefile(output, recording):
        raise ConfigError(f"-o {output} is the recording itself; write the report to another file")
    analysis = analyse_recording(recording, shared_inputs=True)
    chosen = parse_turns(turns, len(analysis.turns)) if turns else None
    data = report_data(analysis, chosen)
    page = render_page(data, recording)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(page)
        os.chmod(output, 0o600)
    except OSError as err:
        raise ConfigError(f"cannot write {output} ({err.strerror or err}); choose another -o path") from None
    return len(data.turns)


def report_command(
    file: Annotated[Path, typer.Argument(help="A ctxscope recording (.jsonl).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")],
    turns: Annotated[str | None, typer.Option("--turns", help="Only turns A-B (e.g. 3-10).")] = None,
) -> None:
    """One self-contained HTML file: timeline, diffs, answers, composition and cache; the recording inside."""
    shown = write_report(file, output, turns=turns)
    size = output.stat().st_size
    print(f"wrote {output} ({shown} turns, {size / 1e6:.2f} MB; it also replays as a cassette)")


def register(app: typer.Typer) -> None:
    app.command("report")(report_command)

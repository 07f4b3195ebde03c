"""Display lines (`viewmodel.Line`) as Rich text: semantic style names mapped to colours once."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from ctxscope.inspector.tui.viewmodel import Line

STYLES: dict[str, Style] = {
    "title": Style(bold=True),
    "dim": Style(dim=True),
    "note": Style(italic=True),
    "fold": Style(dim=True, italic=True),
    "added": Style(color="green"),
    "added-strong": Style(color="green", bold=True, reverse=True),
    "removed": Style(color="red"),
    "removed-strong": Style(color="red", bold=True, reverse=True),
    "changed": Style(color="yellow"),
    "same": Style(dim=True),
    "warn": Style(color="yellow", bold=True),
    "error": Style(color="red", bold=True),
    "mark": Style(color="magenta", bold=True),
    "gone": Style(dim=True, strike=True),
    "world": Style(color="cyan"),
    "modemark": Style(color="magenta"),
    "thread": Style(color="blue"),
    "bar": Style(color="cyan"),
    "cost": Style(color="green"),
    "kind-initial": Style(bold=True),
    "kind-append": Style(),
    "kind-rewrite": Style(color="yellow", bold=True),
    "kind-compaction": Style(color="magenta", bold=True),
    "kind-fork": Style(color="cyan", bold=True),
}
STYLES.update(
    {f"comp-{i}": Style(color=c) for i, c in enumerate(("cyan", "green", "yellow", "magenta", "blue", "red"))}
)  # the composition bar's kinds (their glyphs tell them apart without colour)
HIT = Style(reverse=True, bold=True)
"""A search match inside a line."""


def to_text(line: Line, needle: str = "", *, wrap: bool = False) -> Text:
    """One display line as a Rich `Text` (cut with an ellipsis unless `wrap`); every occurrence
    of the search `needle` (any case) is highlighted."""
    text = Text(no_wrap=not wrap, overflow="fold" if wrap else "ellipsis", end="")
    for run in line.runs:
        text.append(run.text, STYLES.get(run.style))
    if needle:
        text.highlight_words([needle], HIT, case_sensitive=False)
    return text


__all__ = ["HIT", "STYLES", "to_text"]

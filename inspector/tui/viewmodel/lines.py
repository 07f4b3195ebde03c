"""Display lines: what the widgets draw, as plain data (text runs with semantic style names).

Style names (`added`, `removed`, `fold`, `title`, `warn`, `kind-compaction`, ...) are mapped to
colours by the widgets; every meaning is also carried by the text itself (`+`, `-`, `~` markers,
words), so the inspector reads the same without colour.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from ctxscope.inspector.tui.viewmodel.actions import LineAction


@dataclass(frozen=True)
class Run:
    """A run of text with one semantic style ("" for plain)."""

    text: str
    style: str = ""


@dataclass(frozen=True)
class Line:
    """One display line; `action` is what Enter on it does (`viewmodel.actions`). A line may hold
    newlines: it is then one entry of several rows (a timeline row whose words wrap), selected and
    scrolled as one."""

    runs: tuple[Run, ...]
    action: LineAction | None = None

    @property
    def text(self) -> str:
        """The line as plain text."""
        return "".join(r.text for r in self.runs)

    @classmethod
    def plain(cls, text: str, style: str = "", action: LineAction | None = None) -> Line:
        """A line of one run."""
        return cls((Run(text, style),), action)


def count(n: int, noun: str) -> str:
    """`1 item`, `3 items`."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def short_tokens(n: int | None) -> str:
    """`950`, `12.3k`, `1.2M`; `-` when unknown."""
    if n is None:
        return "-"
    if n < 1_000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1_000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def short_usd(usd: float | None, *, reported: bool = True) -> str:
    """A request's cost in at most 8 columns, with `ctxscope cost`'s words: `$0.0123`, `$12.35`,
    `unpriced` (no price for its model), `no usage` (its response reported none)."""
    if not reported:
        return "no usage"
    if usd is None:
        return "unpriced"
    if usd < 10:
        return f"${usd:.4f}"
    if usd < 1_000:
        return f"${usd:.2f}"
    return f"${usd:,.0f}"


def bar(ratio: float, width: int = 5) -> str:
    """A small fill bar in ASCII-safe block characters (`#` full, `.` empty)."""
    filled = round(max(0.0, min(1.0, ratio)) * width)
    if ratio > 0 and filled == 0:
        filled = 1
    return "#" * filled + "." * (width - filled)


def clip(text: str, width: int) -> str:
    """One line of at most `width` characters (newlines flattened)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(0, width - 1)] + "…"


def wrapped(text: str, width: int, style: str = "") -> list[Line]:
    """`text` as lines of at most `width` columns, broken at spaces (a legend is read whole)."""
    return [Line.plain(row, style) for row in textwrap.wrap(text, max(10, width), break_on_hyphens=False)]


__all__ = ["Line", "Run", "bar", "clip", "count", "short_tokens", "short_usd", "wrapped"]

"""The text reports' line primitives: one logical line wrapped at the console width with its
continuation lines indented under their bullet, and paths written relative to the recording's root.

All dynamic text goes through `rich.text.Text`, never markup, so brackets in labels print as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

__all__ = ["KIND_STYLE", "Paths", "Segment", "line", "plural"]

KIND_STYLE = {
    "initial": "bold cyan",
    "append": "green",
    "rewrite": "bold yellow",
    "compaction": "bold magenta",
    "fork": "bold blue",
}
"""Change kind → its style in the text reports."""

Segment = tuple[str, str] | str
"""A piece of a line: plain text, or (text, style)."""

_BULLET = re.compile(r" *(?:[·│+\-~=] )?")
"""The leading indent and bullet of a line: where its wrapped continuation lines start."""


def line(console: Console, *parts: Segment) -> None:
    """One logical line, wrapped at the console width (`$COLUMNS`) rather than running past it;
    continuation lines start under the text after the line's indent and bullet."""
    text = Text()
    for part in parts:
        if isinstance(part, tuple):
            text.append(part[0], style=part[1])
        else:
            text.append(part)
    width = console.width
    plain = text.plain
    hang = _BULLET.match(plain).end()  # type: ignore[union-attr]  # the pattern matches any string
    if len(plain) <= width or "\n" in plain or not 0 < hang <= width // 2:
        console.print(text, overflow="fold")
        return
    head, body = text[:hang], text[hang:]
    for n, piece in enumerate(body.wrap(console, width - hang, overflow="fold")):
        row = head if n == 0 else Text(" " * hang)
        console.print(Text.assemble(row, piece), overflow="fold")


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass(frozen=True)
class Paths:
    """Writes paths under the recording's root (its first working directory) as `./…`.

    Applied to what ctxscope says (labels, sentences, notes, world-state values), never to the
    texts the model saw, which stay exact."""

    root: str | None

    @property
    def active(self) -> bool:
        return bool(self.root) and self.root != "/"

    def __call__(self, value: str) -> str:
        if not self.active or self.root is None or self.root not in value:
            return value
        return re.sub(re.escape(self.root) + r"(?=/|\b|$)(?![\w.-])", ".", value)

    def header(self, console: Console) -> None:
        """The root, said once, before the first relative path."""
        if self.active and self.root is not None:
            line(console, ("paths ", "dim"), ("./… are relative to ", "dim"), self.root)

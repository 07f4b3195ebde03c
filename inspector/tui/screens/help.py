"""`?`: every key of the screen it was opened on, and what the timeline's signs mean. Lines wrap,
so the help reads whole at 80 columns."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from ctxscope.inspector.tui.viewmodel import Line, Run
from ctxscope.inspector.tui.widgets.lines_view import LinesView

KEYS = (
    ("up/down, j/k", "move between turns (timeline) or lines (other panes)"),
    ("tab / shift+tab", "next / previous pane (one pane below 100 columns, two below 120)"),
    (
        "enter",
        "open a folded run, or the full text of an item; on an agent, a request or a composition bar: go to its turn",
    ),
    ("m", "mark this turn: every other turn is then diffed against it (m again: unmark)"),
    ("d / c / t", "turn diff / compaction view / tokens view"),
    ("x", "context composition: a stacked bar a turn against the window and the compaction threshold"),
    ("s", "tokens view: sort by tokens or by name"),
    (
        "$",
        "cost view: each request's cost and tokens (input, cached, cache writes, output, reasoning), "
        "sums per thread, agent, kind (compactions, side requests apart) and model, as ctxscope cost",
    ),
    (
        "a",
        "agents view: the tree of agents (parent → child by the spawn call) with their threads, "
        "requests and cost; Enter on an agent or a turn moves the timeline there",
    ),
    ("w", "world-state pane"),
    ("[ / ]", "previous / next turn where the world state changed"),
    ("/", "search every turn's items, fragments and instructions"),
    ("n / N", "next / previous search hit"),
    ("f", "filter: kind:compaction changed:cwd tool:apply_patch model: thread: status:"),
    ("g", "go to turn N"),
    ("y", "copy the highlighted item's JSON"),
    ("e", "export this turn as markdown to a file"),
    ("F", "follow: jump to new turns as they land (with --follow)"),
    ("W", "wrap the turn view's long lines in place, or cut them again"),
    ("h", "fold the side requests out of the timeline, or show them"),
    ("ctrl+p", "command palette: every action, go to turn N, diff turn A with B"),
    ("?", "this help"),
    ("q", "quit"),
)
"""Key → what it does; also the README's key table."""
SIGNS = (
    ("w", "timeline: the world state changed at this turn (cwd, sandbox, skills, ...)"),
    ("c", "timeline: the cached prefix broke at this turn (the turn view names where and why)"),
    ("!", "timeline: the request failed or its stream was cut"),
    ("M", "timeline: the marked turn, which every other turn is diffed against"),
    ("####", "timeline: the input tokens against the model's context window (# full, . empty)"),
    (
        "$0.0123",
        "timeline: what the request cost (unpriced: no price for its model; no usage: none reported), "
        "API-equivalent where the header says so (a ChatGPT login is billed by plan); under the "
        "duration where the pane is narrow",
    ),
    ("- kind", "timeline: a side request (title, memory, prewarm, ...), dimmed"),
    ("@N / *", "world: the value since turn N / changed at this turn"),
    ("gone", "world: the value left the context at that turn (until it comes back)"),
)
"""What the signs on the timeline and in the world pane mean (`?` lists them after the keys)."""
COMPARE_KEYS = (
    ("up/down, j/k", "move between aligned pairs (left) or lines (right)"),
    ("tab", "switch between the pairs and the pair's differences"),
    ("enter", "on a line that differs: A's and B's texts whole, side by side"),
    ("W", "changed lines whole, wrapped, or cut again where they differ"),
    ("ctrl+p", "command palette"),
    ("?", "this help"),
    ("q", "quit"),
)
"""The compare screen's keys: only the ones it has."""
Pairs = tuple[tuple[str, str], ...]


def help_lines(keys: Pairs, signs: Pairs) -> list[Line]:
    """The keys, then the signs, one line each (wrapped by the pane where they are long); the key
    column is as wide as its longest key and two spaces, so a key never runs into its words."""
    width = max((len(k) for k, _ in (*keys, *signs)), default=0) + 2
    lines = [Line((Run(f"{key:<{width}}", "title"), Run(action))) for key, action in keys]
    if signs:
        lines += [Line.plain(""), Line.plain("signs", "title")]
        lines += [Line((Run(f"{sign:<{width}}", "title"), Run(meaning))) for sign, meaning in signs]
    return lines


class HelpScreen(ModalScreen[None]):
    """The key table of one screen (the main screen's by default) and, there, the signs."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def __init__(self, keys: tuple[tuple[str, str], ...] = KEYS, signs: tuple[tuple[str, str], ...] = SIGNS) -> None:
        super().__init__()
        self.keys, self.signs = keys, signs

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label("ctxscope inspect: keys  (escape to close)", id="help-title")
            table = LinesView(id="help-table", classes="-wrap")
            table.wrap = True
            table.show_lines(help_lines(self.keys, self.signs))
            yield table

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["COMPARE_KEYS", "KEYS", "SIGNS", "HelpScreen", "help_lines"]

"""`ctxscope inspect` through the real command in a real terminal (tmux): what a user sees in the
first minute. The pilot tests build the app directly and so miss what the command's argument
handling does (the focus on open, the header's view). Skipped where tmux is not installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.inspector.tui.conftest import recording

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed: no real terminal to drive")
WAIT_S = 40.0
"""Bound on waiting for the screen to show something (a loaded 2-core machine starts Python slowly)."""


class Terminal:
    """One tmux session running a command at a fixed size."""

    def __init__(self, name: str, socket: Path) -> None:
        self.name, self.socket = name, socket

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-S", str(self.socket), *args], capture_output=True, text=True, timeout=30, check=False
        )
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, seen: Callable[[str], bool], what: str) -> str:
        """The screen once `seen` holds for it; fails with the screen after `WAIT_S`."""
        deadline = time.monotonic() + WAIT_S
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if seen(text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"never saw {what}; the screen was:\n{text}")


@contextmanager
def terminal(tmp_path: Path, size: tuple[int, int], *args: str) -> Iterator[Terminal]:
    """`ctxscope inspect ARGS` in a fresh tmux server of its own, stopped afterwards. COLUMNS and
    LINES are unset: Textual takes them over the terminal's size (pytest sets them to 80x24)."""
    socket = tmp_path / "tmux.sock"
    term = Terminal(f"inspect-{uuid.uuid4().hex[:8]}", socket)
    command = " ".join([sys.executable, "-m", "ctxscope.cli", "inspect", *args])
    width, height = size
    term.tmux(
        "new-session", "-d", "-s", term.name, "-x", str(width), "-y", str(height),
        f"env -u COLUMNS -u LINES TERM=xterm-256color {command}",
    )  # fmt: skip
    try:
        yield term
    finally:
        term.tmux("kill-server")


def _timeline_row(screen: str, number: int) -> str:
    """The first screen line that is turn `number`'s timeline row."""
    for line in screen.splitlines():
        cells = line.strip("│╭╮╰╯ ").split()
        if cells[:1] == [str(number)] and len(cells) > 2 and cells[1].startswith("T"):
            return line
    return ""


def test_down_moves_to_turn_2_right_after_the_command_opens(tmp_path: Path) -> None:
    with terminal(tmp_path, (120, 40), str(recording("world"))) as term:
        term.wait_for(lambda s: "turn 1 of 3" in s, "turn 1 in the header")
        term.keys("Down")
        term.wait_for(lambda s: "World state at turn 2" in s, "turn 2's world state after Down")
        term.wait_for(lambda s: "turn 2 of 3 | view turn" in s, "turn 2 in the header")


def test_the_header_names_the_view_asked_for_and_the_timeline_keeps_the_keys(tmp_path: Path) -> None:
    with terminal(tmp_path, (110, 30), str(recording("world")), "--view", "world", "--turn", "2") as term:
        term.wait_for(lambda s: "World state at turn 2" in s, "turn 2's world state")
        term.wait_for(lambda s: "turn 2 of 3 | view world" in s, "the world view in the header")
        term.keys("j")
        term.wait_for(lambda s: "World state at turn 3" in s, "turn 3 after j")


def test_at_200_columns_a_mode_switch_is_in_words_on_its_row(tmp_path: Path) -> None:
    with terminal(tmp_path, (200, 50), str(recording("world"))) as term:
        screen = term.wait_for(lambda s: "mode default → plan" in s, "the loaded timeline")
        switch = next(n for n in (1, 2, 3) if "mode default → plan" in _timeline_row(screen, n))
        row = _timeline_row(screen, switch)
        # the words (then the answer in short), then the figures: tokens, the fill bar, the duration
        assert re.search(r"mode default → plan.* [0-9.]+k [#.]{4} +(-|[0-9.]+s) │", row), row
        assert "goal set: ship the parser" in screen


def test_at_80x24_one_pane_with_its_figures_and_the_footer_keeps_help_and_quit(tmp_path: Path) -> None:
    with terminal(tmp_path, (80, 24), str(recording("world"))) as term:
        screen = term.wait_for(lambda s: "turn 1 of 3" in s and "Quit" in s, "the loaded timeline")
        assert "? Help" in screen and "q Quit" in screen
        row = _timeline_row(screen, 1)
        assert re.search(r"initial .* [0-9.]+k [#.]{4} +(-|[0-9.]+s) │", row), row  # no figure cut
        assert "Turn 1 " not in screen  # one pane: the timeline alone
        term.keys("Tab")
        term.wait_for(lambda s: "Turn 1 " in s, "the turn pane after Tab")

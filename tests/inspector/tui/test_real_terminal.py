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
COST = r"(unpriced|no usage|\$[0-9.,]+)"
"""A timeline row's cost figure (`short_usd`)."""
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
def terminal(
    tmp_path: Path, size: tuple[int, int], *args: str, env: dict[str, str] | None = None
) -> Iterator[Terminal]:
    """`ctxscope inspect ARGS` in a fresh tmux server of its own, stopped afterwards. COLUMNS and
    LINES are unset: Textual takes them over the terminal's size (pytest sets them to 80x24);
    `env`: more variables for the command (a price table)."""
    socket = tmp_path / "tmux.sock"
    term = Terminal(f"inspect-{uuid.uuid4().hex[:8]}", socket)
    command = " ".join([sys.executable, "-m", "ctxscope.cli", "inspect", *args])
    width, height = size
    variables = " ".join(f"{k}={v}" for k, v in (env or {}).items())
    term.tmux(
        "new-session", "-d", "-s", term.name, "-x", str(width), "-y", str(height),
        f"env -u COLUMNS -u LINES TERM=xterm-256color {variables} {command}",
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
        assert re.search(rf"mode default → plan.* [0-9.]+k rep [#.]{{4}} +{COST} +(-|[0-9.]+s) │", row), row
        assert "goal set: ship the parser" in screen


def test_at_80x24_one_pane_with_its_figures_and_the_footer_keeps_help_and_quit(tmp_path: Path) -> None:
    with terminal(tmp_path, (80, 24), str(recording("world"))) as term:
        screen = term.wait_for(lambda s: "turn 1 of 3" in s and "Quit" in s, "the loaded timeline")
        assert "? Help" in screen and "q Quit" in screen
        # the key bar: every label whole (Textual's Footer squeezed them: `^pale tte`)
        words = set(screen.splitlines()[-1].split())
        labels = {"tab", "Pane", "?", "Help", "q", "Quit", "m", "Mark", "d", "Diff", "c", "Compaction"}
        labels |= {"t", "Tokens", "$", "Cost", "a", "Agents", "/", "Search", "f", "Filter", "^p", "palette"}
        assert words <= labels and {"^p", "palette"} <= words, screen.splitlines()[-1]
        row = _timeline_row(screen, 1)
        assert re.search(rf"initial .* [0-9.]+k rep [#.]{{4}} +{COST} +(-|[0-9.]+s) │", row), row  # no figure cut
        assert "Turn 1 " not in screen  # one pane: the timeline alone
        term.keys("Tab")
        term.wait_for(lambda s: "Turn 1 " in s, "the turn pane after Tab")


def _row_text(screen: str, number: int) -> str:
    """Turn `number`'s timeline entry: its first row and the rows its words wrapped onto (the rows
    after it that start under the thread), joined, the panes' borders taken off."""
    lines = screen.splitlines()
    for index, line in enumerate(lines):
        if line == _timeline_row(screen, number) and line:
            rows = [line]
            for more in lines[index + 1 :]:
                cell = more.split("│")[1] if more.count("│") >= 2 else ""
                if not cell.startswith("      ") or not cell.strip():
                    break
                rows.append(more)
            return " ".join(r.split("│")[1].strip() for r in rows if r.count("│") >= 2)
    return ""


def test_at_120_columns_a_mode_switch_and_a_plan_submission_keep_their_words(
    tmp_path: Path, ctxscope_home: Path
) -> None:
    with terminal(tmp_path, (120, 40), str(recording("world"))) as term:
        screen = term.wait_for(lambda s: "turn 1 of 3" in s, "the loaded timeline")
        assert "mode default → plan" in _row_text(screen, 2), screen
        assert "goal set: ship the parser" in _row_text(screen, 3), screen
        assert re.search(r" 1\.2k rep [#.]{4} ", _timeline_row(screen, 2))  # its figures on its first row
    capture = _plan_capture(tmp_path)
    with terminal(tmp_path, (120, 40), str(capture)) as term:
        screen = term.wait_for(lambda s: "turn 1 of 1" in s, "the loaded timeline")
        assert "plan submitted (revision 1)" in _row_text(screen, 1), screen


def _plan_capture(tmp_path: Path) -> Path:
    """A real capture of `ctxscope agent --plan -p` whose one answer submits a plan."""
    from tests.cli_support import run_cli
    from tests.harness.harness_support import make_repo, write_script

    repo = make_repo(tmp_path / "repo")
    plan = "# Goal\nAdd greet().\n\n## Verify\n- pytest -q\n"
    script = write_script(tmp_path / "s.json", [{"text": f"Here.\n<proposed_plan>\n{plan}</proposed_plan>\n"}])
    capture = tmp_path / "plan.jsonl"
    args = ["--provider", "script", "--plan-profile", "codex", "--script", str(script), "--capture", str(capture)]
    done = run_cli("agent", *args, "--plan", "-p", "add greet", cwd=repo)
    assert done.returncode == 0, done.stderr
    return capture


def test_follow_shows_a_new_turn_with_its_cache_flag(tmp_path: Path) -> None:
    from tests.inspector.tui.test_follow import split_after_turn

    # the small Codex capture: turn 2 breaks its 300k-token cached prefix (c), turn 4 changes the
    # world (w: a new cwd and AGENTS.md); the `world` fixture's changes cost no cached token, no `c`
    head, rest = split_after_turn(recording("codex"), 1)
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    with terminal(tmp_path, (120, 40), "--follow", str(live)) as term:
        term.wait_for(lambda s: "turn 1 of 1" in s and "following" in s, "the first turn, following")
        with live.open("ab") as stream:  # the writer appends the next turns
            stream.write(b"".join(rest))
        screen = term.wait_for(lambda s: "append    c " in _timeline_row(s, 2), "turn 2 with its c flag")
        screen = term.wait_for(lambda s: "append   w  " in _timeline_row(s, 4), "turn 4 with its w flag")
        assert re.search(r" 10 rep [#.]{4} ", _timeline_row(screen, 2))  # its figure, labelled
        term.wait_for(lambda s: "turn 6 of 6" in s, "the cursor following to the last turn")


@pytest.mark.slow
def test_the_compare_screen_of_two_codex_runs_shows_the_sandbox_modes(tmp_path: Path) -> None:
    from ctxscope.inspector.tui.loader import load
    from ctxscope.inspector.tui.viewmodel import Inspector
    from tests.inspector.tui.codex_captures import capture_codex_exec

    a = capture_codex_exec(tmp_path, "ww", "--sandbox", "workspace-write")
    b = capture_codex_exec(tmp_path, "dfa", "--sandbox", "danger-full-access")
    # one `codex exec`, one socket: its prewarm and its turn are that connection's two frames
    inspector = Inspector(load(a).analysis)
    assert [inspector.connection(n) for n in inspector.numbers] == [
        "WebSocket connection 1 of 1, frame 1 on it",
        "WebSocket connection 1 of 1, frame 2 on it",
    ]
    with terminal(tmp_path, (120, 40), str(a), str(b)) as term:
        term.wait_for(lambda s: "differs" in s, "the aligned pairs")
        term.keys("Down")  # the pair whose permissions text differs
        screen = term.wait_for(lambda s: "permissions" in s and "Row 2" in s, "pair 2's differences")
        assert "`workspace-write`" in screen and "`danger-full-access`" in screen, screen
        term.keys("W")  # whole lines, wrapped
        term.wait_for(lambda s: "No filesystem sandboxing" in s.replace("\n", " "), "the wrapped lines")
        term.keys("Tab", "Down", "Down", "Down", "Down", "Down", "Down", "Down", "Down", "Enter")
        term.wait_for(lambda s: "characters)" in s, "both texts opened with Enter")


def test_the_agents_tree_and_the_costs_of_a_real_codex_subagent_session(tmp_path: Path) -> None:
    """The real Codex 0.171 session that spawned an agent, priced with the tests' table: each
    timeline row's cost (under the duration in the three-pane timeline, beside the tokens at 80
    columns), the agents tree (`a`; Enter on the child moves the timeline) and the cost view (`$`)."""
    from ctxscope.inspector.tui.loader import load
    from ctxscope.inspector.tui.viewmodel import Inspector
    from ctxscope.inspector.tui.viewmodel.lines import short_usd

    subagent, prices = recording("subagent"), Path(__file__).resolve().parent / "prices.toml"
    env = {"CTXSCOPE_PRICES": str(prices)}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CTXSCOPE_PRICES", str(prices))
        doc = Inspector(load(subagent).analysis).cost_document
    usd = {t["turn"]: short_usd(t["usd"]) for t in doc["turns"]}
    agents = {a["agent"]: short_usd(a["usd"]) for a in doc["agents"]}
    with terminal(tmp_path, (120, 40), str(subagent), env=env) as term:
        screen = term.wait_for(lambda s: "turn 1 of 3" in s, "the loaded timeline")
        for number, money in usd.items():
            assert money in _row_text(screen, number), screen
        term.keys("a")
        screen = term.wait_for(lambda s: "Agents  2 agents, 1 spawned agent" in s, "the agents view")
        assert "└ Bacon  T2  1 request" in screen and "spawned by main in turn 1, result in turn 2" in screen
        assert agents["main"] in screen and agents["Bacon"] in screen and "(spawns Bacon)" in screen
        term.keys("Tab", "Down", "Down", "Enter")  # the turn pane: from turn 1's line down to Bacon
        term.wait_for(lambda s: "turn 3 of 3 | view agents" in s, "the timeline moved to Bacon's turn")
        term.keys("$")
        screen = term.wait_for(lambda s: "Cost  $" in s and "view cost" in s, "the cost view")
        assert f"Cost  ${doc['total']['usd']:,.4f}" in screen and "Turn 3  T2, agent Bacon, gpt-5-codex" in screen
        assert "Per agent" in screen
    narrow = tmp_path / "narrow"  # a tmux server (and socket) of its own
    narrow.mkdir()
    with terminal(narrow, (80, 24), str(subagent), env=env) as term:
        screen = term.wait_for(lambda s: "turn 1 of 3" in s, "the loaded timeline")
        for number, money in usd.items():
            assert re.search(rf" rep [#.]{{4}} +{re.escape(money)} +[0-9.]+s │", _timeline_row(screen, number)), screen

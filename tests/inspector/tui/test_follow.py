"""`ctxscope inspect --follow`: turns appended to the file appear while the app runs."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot

from ctxscope.inspector.tui.app import InspectorApp
from ctxscope.inspector.tui.screens.main import MainScreen
from ctxscope.inspector.tui.snapshot import settle
from ctxscope.inspector.tui.viewmodel.actions import ShowTurn
from ctxscope.inspector.tui.widgets import Timeline
from ctxscope.inspector.tui.widgets.lines_view import LinesView
from tests.inspector.tui.conftest import recording

pytestmark = pytest.mark.anyio
INTERVAL = 0.05
ROUNDS = 200
"""Bound on waiting for the live feed (each round pauses 0.1 s)."""


def split_after_turn(source: Path, turns: int) -> tuple[bytes, list[bytes]]:
    """The file up to and including its `turns`-th exchange line, and the lines after it."""
    lines = source.read_bytes().splitlines(keepends=True)
    seen = 0
    for index, line in enumerate(lines):
        if json.loads(line).get("kind") == "exchange":
            seen += 1
            if seen == turns:
                return b"".join(lines[: index + 1]), lines[index + 1 :]
    raise AssertionError("not enough exchanges")


async def wait_for(pilot: Pilot[None], screen: MainScreen, turns: int) -> None:
    for _ in range(ROUNDS):
        await pilot.pause(INTERVAL * 2)
        if len(screen.inspector.analysis.turns) >= turns:
            await settle(pilot)
            return
    raise AssertionError(f"the app did not reach {turns} turns")


async def started(pilot: Pilot[None]) -> MainScreen:
    await pilot.pause()
    for _ in range(ROUNDS):
        screen = pilot.app.screen
        if isinstance(screen, MainScreen) and screen.opened:
            return screen
        await pilot.pause(INTERVAL)
    raise AssertionError("the app did not load")


@asynccontextmanager
async def following(
    tmp_path: Path, *, size: tuple[int, int] = (120, 40)
) -> AsyncIterator[tuple[Pilot[None], MainScreen, Path, list[bytes]]]:
    """The app following a copy of the compaction recording cut after its second turn; yields
    (pilot, screen, the copy, the lines still to append)."""
    head, rest = split_after_turn(recording("compaction"), 2)
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    app = InspectorApp(live, follow=True)
    async with app.run_test(size=size) as pilot:
        yield pilot, await started(pilot), live, rest


async def test_following_moves_the_cursor_to_each_new_turn(tmp_path: Path) -> None:
    async with following(tmp_path) as (pilot, screen, live, rest):
        assert len(screen.query_one(Timeline).lines) == 2
        assert screen.current == 2  # following: the newest turn from the start
        with live.open("ab") as fh:
            fh.write(b"".join(rest))
        await wait_for(pilot, screen, 5)
        assert screen.current == 5 and len(screen.query_one(Timeline).lines) == 5


async def test_with_follow_off_new_turns_are_announced_not_jumped_to(tmp_path: Path) -> None:
    async with following(tmp_path) as (pilot, screen, live, rest):
        await pilot.press("F")  # follow off
        assert not screen.following
        torn = rest[0][: len(rest[0]) // 2]
        with live.open("ab") as fh:  # a torn last line first: tolerated, nothing new yet
            fh.write(torn)
        await pilot.pause(INTERVAL * 4)
        assert len(screen.inspector.analysis.turns) == 2
        with live.open("ab") as fh:
            fh.write(rest[0][len(torn) :] + b"".join(rest[1:]))
        await wait_for(pilot, screen, 5)
        assert screen.current == 2  # opened on the newest turn, and stayed there
        assert "+3 new turns" in str(screen.query_one("#status").render())
        await pilot.press("F")
        await settle(pilot)
        assert screen.current == 5


async def test_a_deleted_file_stops_following_with_a_message(tmp_path: Path) -> None:
    async with following(tmp_path) as (pilot, screen, live, _):
        live.unlink()
        for _ in range(ROUNDS):
            await pilot.pause(INTERVAL * 2)
            if screen.live is None:
                break
        assert "deleted while following" in str(screen.query_one("#status").render())
        assert len(screen.query_one(Timeline).lines) == 2  # what was read stays


def test_follow_on_a_file_not_written_yet_waits_for_it(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    target, svg = tmp_path / "later.jsonl", tmp_path / "shot.svg"
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "inspector" / "world.jsonl"
    command = [
        sys.executable,
        "-m",
        "ctxscope.cli",
        "inspect",
        "--follow",
        str(target),
        "--snapshot",
        str(svg),
    ]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert proc.stderr is not None
        said = proc.stderr.readline()  # printed before it waits: nothing is racing the file below
        assert said == f"waiting for {target} to be written (Ctrl-C to stop)\n"
        assert proc.poll() is None, "it must wait, not exit"
        shutil.copy(fixture, target)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert svg.read_text().startswith("<svg")
    missing_dir = tmp_path / "nowhere" / "x.jsonl"
    gone = subprocess.run([*command[:4], str(missing_dir)], capture_output=True, text=True, timeout=60)
    assert gone.returncode == 2 and gone.stderr == f"error: {missing_dir}: no such file\n"


async def test_a_view_of_every_turn_takes_in_the_turns_that_land(tmp_path: Path) -> None:
    """The cost view lists every request: turns that land while it is shown are listed, though the
    cursor stays where it was (follow off) and the timeline only grew."""
    async with following(tmp_path, size=(160, 40)) as (pilot, screen, live, rest):
        await pilot.press("F")  # follow off
        await pilot.press("dollar_sign")
        await settle(pilot)

        def listed() -> set[int]:
            actions = (line.action for line in screen.query_one("#turn", LinesView).lines)
            return {action.number for action in actions if isinstance(action, ShowTurn)}

        assert listed() == {1, 2}
        with live.open("ab") as fh:
            fh.write(b"".join(rest))
        await wait_for(pilot, screen, 5)
        assert screen.current == 2 and listed() == {1, 2, 3, 4, 5}

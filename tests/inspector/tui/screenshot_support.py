"""A small screenshot-comparison fixture for the inspector (instead of pytest-textual-snapshot,
whose syrupy pin caps pytest below 9).

`take` runs the app headless at a fixed size, waits for loading and every worker, presses keys,
then asserts the sentinel (the main screen's timeline mounted, the recording loaded) and that no
worker failed before exporting the SVG: a crashed app renders a near-blank screen that a blank
baseline would accept forever. `compare` checks the SVG against `snapshots/<name>.svg` after
removing the per-export id Textual puts in class names; run with CTXSCOPE_UPDATE_SNAPSHOTS=1 to
write new baselines (look at each one before committing it). Baselines belong to the Textual
version in `snapshots/TEXTUAL_VERSION` (upgrades redraw screens): under another version the
screens are still taken and checked for life, but not compared.
"""

from __future__ import annotations

import os
import re
from importlib.metadata import version
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerState

from ctxscope.inspector.tui.screens.compare import CompareScreen
from ctxscope.inspector.tui.screens.main import MainScreen
from ctxscope.inspector.tui.snapshot import settle, snapshot_app
from ctxscope.inspector.tui.widgets import Timeline

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
_EXPORT_ID = re.compile(r"terminal-\d+")


def normalise(svg: str) -> str:
    """The SVG without Textual's per-export id."""
    return _EXPORT_ID.sub("terminal", svg)


async def take(
    path: Path,
    *,
    size: tuple[int, int],
    turn: int | None = None,
    view: str = "turn",
    keys: tuple[str, ...] = (),
) -> str:
    """The SVG of one screen, after checking that the app is alive and loaded."""
    app = snapshot_app(path, turn=turn, view=view)
    async with app.run_test(size=size) as pilot:
        await _press(pilot, keys)
        main = next(s for s in app.screen_stack if isinstance(s, MainScreen))
        assert main.query_one(Timeline).is_mounted, "sentinel: the timeline is not mounted"
        assert main.opened
        assert turn is None or main.current == turn
        return app.export_screenshot(title=f"ctxscope inspect {path.name}")


async def _press(pilot: Pilot[None], keys: tuple[str, ...]) -> None:
    """Settle, press each key and settle again; then no worker may have failed."""
    await settle(pilot)
    for key in keys:
        await pilot.press(key)
        await settle(pilot)
    failed = [w for w in pilot.app.workers if w.state is WorkerState.ERROR]
    assert not failed, f"workers failed: {[w.error for w in failed]}"


async def take_compare(a: Path, b: Path, *, size: tuple[int, int], keys: tuple[str, ...] = ()) -> str:
    """The SVG of the compare screen of `a` and `b`, after checking it loaded the comparison."""
    app = snapshot_app(a, turn=None, view=None, other=b)
    async with app.run_test(size=size) as pilot:
        await _press(pilot, keys)
        screen = next(s for s in app.screen_stack if isinstance(s, CompareScreen))
        assert screen.comparison is not None and screen.error is None, "sentinel: the comparison is not shown"
        return app.export_screenshot(title=f"ctxscope inspect {a.name} {b.name}")


def compare(name: str, svg: str, folder: Path = SNAPSHOTS) -> None:
    """Compare with the stored baseline in `folder` (or write it when updating)."""
    baseline = folder / f"{name}.svg"
    text = normalise(svg)
    pinned = SNAPSHOTS / "TEXTUAL_VERSION"
    if os.environ.get("CTXSCOPE_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(exist_ok=True)
        pinned.write_text(version("textual") + "\n")
    elif pinned.exists() and pinned.read_text().strip() != version("textual"):
        pytest.skip(f"baselines are for Textual {pinned.read_text().strip()}, this is {version('textual')}")
    if os.environ.get("CTXSCOPE_UPDATE_SNAPSHOTS") == "1" or not baseline.exists():
        if os.environ.get("CI") and not baseline.exists():
            raise AssertionError(f"no baseline {baseline.name}: run with CTXSCOPE_UPDATE_SNAPSHOTS=1")
        folder.mkdir(exist_ok=True)
        baseline.write_text(text, encoding="utf-8")
        return
    assert text == baseline.read_text(encoding="utf-8"), (
        f"{name}: the screen differs from {folder.name}/{name}.svg "
        "(look at both; update with CTXSCOPE_UPDATE_SNAPSHOTS=1 if the change is intended)"
    )

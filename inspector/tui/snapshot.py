"""Headless rendering of one inspector screen to SVG (`ctxscope inspect FILE --snapshot OUT.svg`),
for bug reports, docs and CI: the app runs without a terminal at a fixed size, waits until the
recording is loaded and every worker is done, and exports the screen.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.worker import WorkerError, WorkerFailed

from ctxscope.inspector.tui.app import InspectorApp
from ctxscope.inspector.tui.screens.compare import CompareScreen
from ctxscope.inspector.tui.screens.loading import LoadingScreen
from ctxscope.inspector.tui.screens.main import FOLLOW_GROUP, MainScreen, Pane
from ctxscope.inspector.tui.viewmodel import VIEWS, View
from ctxscope.proxy.errors import ConfigError, RecordingError
from ctxscope.proxy.files import refuse_same_file, write_private

SNAPSHOT_VIEWS = ("timeline", "turn", "world", "compaction", "tokens", "composition", "cost", "agents")
MAX_SETTLE_ROUNDS = 200
"""Bound on the wait for loading and rendering (each round yields to the app once)."""


MAX_COLUMNS, MAX_ROWS = 1000, 500


def parse_size(text: str) -> tuple[int, int]:
    """`120x40` → (120, 40); a one-line `ConfigError` otherwise."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or int(width) < 20 or int(height) < 8:
        raise ConfigError(f"--size {text!r}: give columns x rows, at least 20x8, e.g. 120x40")
    # a screen is laid out cell by cell: 100000x100000 would render for hours
    if int(width) > MAX_COLUMNS or int(height) > MAX_ROWS:
        raise ConfigError(f"--size {text!r}: at most {MAX_COLUMNS}x{MAX_ROWS}, e.g. 120x40")
    return int(width), int(height)


def view_args(view: str | None) -> tuple[View, Pane]:
    """A `--view` name → (main-pane view, the pane beside the timeline: `turn` or `world`).
    None: the turn diff beside the timeline."""
    if view is None:
        return "turn", "turn"
    if view not in SNAPSHOT_VIEWS:
        raise ConfigError(f"--view {view!r}: choose one of {', '.join(SNAPSHOT_VIEWS)}")
    if view == "world":
        return "turn", "world"
    for name in VIEWS:
        if view == name:
            return name, "turn"
    return "turn", "turn"  # `timeline`


async def _workers_done(app: Any) -> None:
    """Wait for every worker but the follow loop (which runs until the screen goes away)."""
    for worker in [w for w in app.workers if w.group != FOLLOW_GROUP]:
        try:
            await worker.wait()
        except WorkerFailed:
            raise
        except WorkerError:  # cancelled (a stale render replaced by a newer one) or not started yet
            continue


def _busy(app: Any) -> bool:
    return any(w.is_running for w in app.workers if w.group != FOLLOW_GROUP)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until the main screen has loaded (or failed) and the app is quiet: no worker running
    after a pause (a highlight message handled late may start one more render)."""
    app = pilot.app
    for _ in range(MAX_SETTLE_ROUNDS):
        await pilot.pause()
        await _workers_done(app)
        # loaded: the main screen has drawn its first turns (or the compare screen is up), or the
        # loading screen says why the recording cannot be shown
        top = app.screen_stack[-1] if len(app.screen_stack) > 1 else None  # [0]: the app's default
        if isinstance(top, LoadingScreen):
            loaded = top.error is not None
        elif isinstance(top, MainScreen):
            loaded = top.opened
        elif isinstance(top, CompareScreen):
            loaded = top.comparison is not None or top.error is not None
        else:
            loaded = top is not None
        if loaded:
            await pilot.pause()
            if not _busy(app):
                return


def snapshot_app(path: Path, *, turn: int | None, view: str | None, other: Path | None = None) -> InspectorApp:
    """The app configured for a snapshot of `view` at `turn` (or of the compare screen of `path`
    and `other`): a named view's pane has the focus (so a narrow snapshot shows that pane);
    otherwise the timeline, as when the app opens."""
    main_view, right = view_args(view)
    pane: Pane = right if view not in (None, "timeline") else "timeline"
    return InspectorApp(path, other, turn=turn, view=main_view, pane=pane, right=right)


def render_svg(
    path: Path,
    *,
    turn: int | None = None,
    view: str | None = "turn",
    size: tuple[int, int],
    other: Path | None = None,
) -> str:
    """The SVG of one screen (the compare screen with `other`, on pair `turn` when given);
    `RecordingError` when the recording cannot be shown."""
    app = snapshot_app(path, turn=turn, view=view, other=other)
    result: dict[str, str] = {}
    title = f"ctxscope inspect {path.name}" + (f" {other.name}" if other is not None else "")

    async def pilot_script(pilot: Pilot[object]) -> None:
        await settle(pilot)
        screen = app.screen
        if isinstance(screen, LoadingScreen) and screen.error:
            result["error"] = screen.error
        elif isinstance(screen, CompareScreen) and screen.error:
            result["error"] = screen.error
        elif isinstance(screen, CompareScreen) and turn is not None and not screen.go_to_pair(turn):
            result["error"] = f"there is no row {turn} in the comparison"
        elif isinstance(screen, MainScreen) and turn is not None and screen.current != turn:
            result["error"] = f"there is no turn {turn} in {path.name}"
        await settle(pilot)
        result["svg"] = app.export_screenshot(title=title)
        app.exit()

    asyncio.run(app.run_async(headless=True, size=size, auto_pilot=pilot_script))
    if "error" in result:
        raise RecordingError(result["error"])
    if "svg" not in result:
        raise RecordingError(f"{path.name}: the inspector did not finish rendering")
    return result["svg"]


def write_snapshot(
    path: Path,
    out: Path,
    *,
    turn: int | None = None,
    view: str | None = "turn",
    size: str = "120x40",
    other: Path | None = None,
) -> None:
    """Render and write the SVG (`ConfigError` for bad options, before anything runs)."""
    dims = parse_size(size)
    view_args(view)
    inputs = [path] if other is None else [path, other]
    refuse_same_file(out, inputs)  # before rendering: `--snapshot REC` would replace the recording
    svg = render_svg(path, turn=turn, view=view, size=dims, other=other)
    write_private(out, lambda stream: stream.write(svg), inputs=inputs)  # owner-only, like every output


__all__ = ["SNAPSHOT_VIEWS", "parse_size", "render_svg", "settle", "snapshot_app", "write_snapshot"]

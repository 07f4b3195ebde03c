"""Fixtures for the inspector TUI tests: the committed recordings and a running app."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot

from ctxscope.inspector.tui.app import InspectorApp
from ctxscope.inspector.tui.screens.main import MainScreen
from ctxscope.inspector.tui.snapshot import settle

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "inspector"


def recording(name: str) -> Path:
    """A committed recording of `tests/fixtures/inspector` (or its `tui/` folder)."""
    for folder in (FIXTURES / "tui", FIXTURES):
        if (folder / f"{name}.jsonl").exists():
            return folder / f"{name}.jsonl"
    raise FileNotFoundError(name)


@asynccontextmanager
async def running(
    path: Path, *, size: tuple[int, int] = (120, 40), **options: object
) -> AsyncIterator[tuple[InspectorApp, MainScreen, Pilot[None]]]:
    """The app on `path`, loaded and settled; yields (app, main screen, pilot)."""
    app = InspectorApp(path, **options)  # type: ignore[arg-type]
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        yield app, screen, pilot


@pytest.fixture
def fixture_path() -> Callable[[str], Path]:
    return recording


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio."""
    return "asyncio"

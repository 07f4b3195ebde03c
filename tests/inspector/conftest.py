"""Fixtures for the inspector tests: edge recordings written with the real writer, and the CLI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ctxscope.inspector.analysis import Analysis, analyse_recording
from tests.inspector.edge_support import EDGES


@pytest.fixture
def edge(tmp_path: Path) -> Callable[[str], Path]:
    """Write the named edge recording to a real file and return its path."""

    def make(name: str) -> Path:
        return EDGES[name]().write(tmp_path / f"{name}.jsonl")

    return make


@pytest.fixture
def analysed(edge: Callable[[str], Path]) -> Callable[[str], Analysis]:
    """Write the named edge recording, read it back, and analyse it."""
    return lambda name: analyse_recording(edge(name))

"""Fixtures for context tests (the workspace itself is built in `ctx_workspace`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctx_workspace import Workspace, make_workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    """A git repository with AGENTS.md files, a global AGENTS.md and a skills directory."""
    return make_workspace(tmp_path)

"""Fixtures for context tests (the workspace itself is built in `workspace_support`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from workspace_support import Workspace, make_workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    """A git repository with AGENTS.md files, a global AGENTS.md and a skills directory."""
    return make_workspace(tmp_path)

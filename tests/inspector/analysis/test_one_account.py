"""Every fixture recording tells one story: batch = incremental, and info, diff and the TUI agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inspector.one_account import assert_one_account

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDINGS = sorted(FIXTURES.rglob("*.jsonl"))


def test_there_are_fixtures() -> None:
    assert len(RECORDINGS) >= 14


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_tells_one_story(path: Path) -> None:
    assert_one_account(path)

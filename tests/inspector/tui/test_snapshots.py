"""SVG snapshots of the main screens at 80x24, 110x30, 120x40 and 200x50 on the shipped recordings.

Each also asserts the sentinel widget and that no worker failed (see `screenshots.take`). The
screens show no clock, absolute path of this machine or host name: only the file's name and what
the recording holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inspector.tui.conftest import recording
from tests.inspector.tui.screenshot_support import compare, normalise, take, take_compare

pytestmark = pytest.mark.anyio

WIDE, SMALL, MEDIUM, XWIDE = (120, 40), (80, 24), (110, 30), (200, 50)
CASES = [
    # name, recording, size, turn, view, keys
    ("compaction-turn-wide", "compaction", WIDE, 5, "turn", ()),
    ("compaction-turn-small", "compaction", SMALL, 5, "turn", ()),
    ("compaction-view-wide", "compaction", WIDE, 5, "compaction", ()),
    ("compaction-view-small", "compaction", SMALL, 5, "compaction", ()),
    ("tokens-view-wide", "compaction", WIDE, 3, "tokens", ()),
    ("tokens-view-small", "compaction", SMALL, 3, "tokens", ()),
    ("world-turn-wide", "world", WIDE, 2, "turn", ()),
    ("world-pane-small", "world", SMALL, 3, "world", ()),
    ("timeline-small", "world", SMALL, 1, "timeline", ()),
    ("fork-wide", "fork", WIDE, 3, "turn", ()),
    ("rewrite-wide", "rewrite", WIDE, 3, "turn", ()),
    ("rewrite-small", "rewrite", SMALL, 3, "turn", ()),
    ("remote-compaction-wide", "remote_compaction", WIDE, 4, "compaction", ()),
    ("chain-wide", "chain", WIDE, 2, "turn", ()),
    ("failed-stream-wide", "failed_stream", WIDE, 2, "turn", ()),
    ("tools-reordered-wide", "tools_reordered", WIDE, 2, "turn", ()),
    ("odd-input-small", "odd_input", SMALL, 1, "turn", ()),
    ("marked-diff-wide", "world", WIDE, 1, "turn", ("m", "down", "down")),
    ("help-wide", "world", WIDE, 1, "turn", ("question_mark",)),
    ("composition-wide", "codex", WIDE, 4, "composition", ()),
    ("composition-small", "codex", SMALL, 4, "composition", ()),
    ("composition-xwide", "compaction", XWIDE, 5, "composition", ()),
    ("help-small", "world", SMALL, 1, "timeline", ("question_mark",)),
    ("world-timeline-xwide", "world", XWIDE, 2, "timeline", ()),
    ("world-medium", "world", MEDIUM, 3, "world", ()),
    ("search-hit-wide", "world", WIDE, None, "timeline", ("slash", *"repo", "enter", "n", "n")),
    ("codex-wide", "codex", WIDE, 4, "turn", ()),
    ("codex-compaction-wide", "codex", WIDE, 3, "compaction", ()),
    ("codex-compaction-small", "codex", SMALL, 3, "compaction", ()),
    ("help-medium", "world", (100, 30), 1, "turn", ("question_mark",)),
    ("timeline-medium", "world", (100, 30), 2, "turn", ()),
    ("world-timeline-wide", "world", WIDE, 2, "timeline", ()),
]


@pytest.mark.parametrize(("name", "source", "size", "turn", "view", "keys"), CASES, ids=[c[0] for c in CASES])
async def test_screen(
    name: str, source: str, size: tuple[int, int], turn: int | None, view: str, keys: tuple[str, ...]
) -> None:
    svg = await take(recording(source), size=size, turn=turn, view=view, keys=keys)
    compare(name, svg)


PRICES = Path(__file__).resolve().parent / "prices.toml"
COST_CASES = [
    # name, recording, size, turn, view, keys: the real Codex 0.171 session that spawned an agent
    # (and a ChatGPT login's, API-equivalent), priced with the tests' table (`$CTXSCOPE_PRICES`,
    # named relative so no path of this machine is drawn)
    ("subagent-timeline-small", "subagent", SMALL, 3, "timeline", ()),
    ("subagent-timeline-wide", "subagent", WIDE, 3, "timeline", ()),
    ("subagent-timeline-xwide", "subagent", XWIDE, 3, "timeline", ()),
    ("subagent-cost-small", "subagent", SMALL, 3, "cost", ()),
    ("subagent-cost-medium", "subagent", (100, 30), 3, "cost", ()),
    ("subagent-cost-wide", "subagent", WIDE, 1, "cost", ()),
    ("subagent-agents-wide", "subagent", WIDE, 3, "agents", ()),
    ("subagent-agents-small", "subagent", SMALL, 2, "agents", ()),
    ("subagent-agents-xwide", "subagent", XWIDE, 2, "agents", ()),
    ("subagent-help-wide", "subagent", WIDE, 1, "timeline", ("question_mark",)),
    ("chatgpt-cost-wide", "backend_chatgpt", WIDE, 1, "cost", ()),
]


@pytest.mark.parametrize(("name", "source", "size", "turn", "view", "keys"), COST_CASES, ids=[c[0] for c in COST_CASES])
async def test_cost_screen(
    name: str,
    source: str,
    size: tuple[int, int],
    turn: int,
    view: str,
    keys: tuple[str, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(PRICES.parent)
    monkeypatch.setenv("CTXSCOPE_PRICES", PRICES.name)
    compare(name, await take(recording(source), size=size, turn=turn, view=view, keys=keys))


DOCS = Path(__file__).resolve().parents[3] / "docs"
DOC_SHOTS = [
    # the README's screenshots: name, recording, size, turn, view (`ctxscope inspect REC --snapshot
    # docs/NAME.svg --turn N --view V --size WxH` in this folder, with CTXSCOPE_PRICES=prices.toml)
    ("inspect-main", "codex", (160, 40), 4, "turn"),
    ("inspect-compaction", "codex", (160, 40), 3, "compaction"),
    ("inspect-agents", "subagent", (160, 32), 3, "agents"),
    ("inspect-cost", "subagent", (160, 40), 3, "cost"),
]


@pytest.mark.parametrize(("name", "source", "size", "turn", "view"), DOC_SHOTS, ids=[c[0] for c in DOC_SHOTS])
async def test_the_readme_screenshots_are_the_current_screens(
    name: str, source: str, size: tuple[int, int], turn: int, view: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/*.svg are screens of today's inspector (redrawn with CTXSCOPE_UPDATE_SNAPSHOTS=1)."""
    monkeypatch.chdir(PRICES.parent)
    monkeypatch.setenv("CTXSCOPE_PRICES", PRICES.name)
    compare(name, await take(recording(source), size=size, turn=turn, view=view), DOCS)


async def test_the_readme_compare_screenshot_is_the_current_screen() -> None:
    a, b = recording("codex_workspace_write"), recording("codex_full_access")
    compare("inspect-compare", await take_compare(a, b, size=WIDE, keys=("down",)), DOCS)


COMPARE_CASES = [
    # name, size, keys: two real Codex runs that differ in sandbox mode, on the pair that differs
    ("compare-sandbox-wide", WIDE, ("down",)),
    ("compare-sandbox-small", SMALL, ("down", "tab")),
    ("compare-sandbox-xwide", XWIDE, ("down",)),
    ("compare-sandbox-wrapped", WIDE, ("down", "W")),
    ("compare-texts-wide", WIDE, ("down", "tab", *["down"] * 7, "enter")),
    ("compare-help-wide", WIDE, ("question_mark",)),
]


@pytest.mark.parametrize(("name", "size", "keys"), COMPARE_CASES, ids=[c[0] for c in COMPARE_CASES])
async def test_compare_screen(name: str, size: tuple[int, int], keys: tuple[str, ...]) -> None:
    a, b = recording("codex_workspace_write"), recording("codex_full_access")
    compare(name, await take_compare(a, b, size=size, keys=keys))


async def test_a_changed_screen_fails_the_comparison() -> None:
    svg = await take(recording("world"), size=SMALL, turn=2)
    baseline = normalise(svg)
    assert baseline == normalise(await take(recording("world"), size=SMALL, turn=2))  # deterministic
    assert baseline != normalise(await take(recording("world"), size=SMALL, turn=3))

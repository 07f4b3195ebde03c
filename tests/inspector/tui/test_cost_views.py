"""Cost and agents in the inspector: the cost figure on every timeline row (the turn document's,
at every width, never cutting the figures), the cost view (`$`: `ctxscope cost --format json`'s
document, compared whole with the command run as a subprocess) and the agents view (`a`: the
analysis's agent tree of a real Codex 0.171 session that spawned an agent; Enter moves the timeline).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.agents import agent_tree
from ctxscope.inspector.analysis.cost import PriceTable, usd_text
from ctxscope.inspector.reports import diff_report
from ctxscope.inspector.tui.loader import load
from ctxscope.inspector.tui.screens.main import MainScreen
from ctxscope.inspector.tui.snapshot import settle
from ctxscope.inspector.tui.viewmodel import Inspector
from ctxscope.inspector.tui.viewmodel.actions import ShowTurn
from ctxscope.inspector.tui.viewmodel.lines import short_usd
from ctxscope.inspector.tui.widgets import LinesView, Timeline
from tests.inspector.tui.conftest import FIXTURES, recording, running

PRICES = Path(__file__).resolve().parent / "prices.toml"
"""gpt-5-codex at 1.25 / 0.125 / 10.0 USD per million tokens (cache writes 2.5)."""
SUBAGENT = FIXTURES / "subagent.jsonl"
"""A real Codex 0.171.0 session through the proxy: the model spawned one agent (`multi_agent_v1`)."""


@pytest.fixture
def priced(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every view prices with the test table (`$CTXSCOPE_PRICES`, as a user sets it)."""
    monkeypatch.setenv("CTXSCOPE_PRICES", str(PRICES))
    return PRICES


def _cli_cost(path: Path, prices: Path) -> dict[str, object]:
    """`ctxscope cost NAME --format json` run in the recording's folder (its rows then carry the
    file's name, as the inspector's do)."""
    done = subprocess.run(
        [sys.executable, "-m", "ctxscope", "cost", path.name, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=path.parent,
        env={**os.environ, "CTXSCOPE_PRICES": str(prices)},
    )
    assert done.returncode == 0, done.stderr
    doc: dict[str, object] = json.loads(done.stdout)
    return doc


@pytest.mark.parametrize("width", [50, 64, 80, 100, 180])
def test_every_timeline_row_shows_the_turn_documents_cost_and_keeps_its_width(priced: Path, width: int) -> None:
    analysis = analyse_recording(SUBAGENT)
    docs = {doc.turn: doc for doc in diff_report(analysis).turns}
    lines = Inspector(analysis).timeline(width)
    assert len(lines) == len(docs)
    for line in lines:
        assert isinstance(line.action, ShowTurn)
        doc = docs[line.action.number]
        assert doc.cost is not None and doc.cost.usd is not None and doc.cost.usd > 0
        rows = line.text.split("\n")
        assert {len(row) for row in rows} == {width}, rows  # never wider than the pane: nothing is cut
        money = short_usd(doc.cost.usd)
        # beside the tokens where the words keep room, else at the right of the row's second line
        where = rows[0] if width >= 80 else rows[1]
        assert money in where and where.rstrip().endswith(money if width < 80 else "s"), rows
        assert rows[0].index("rep") < rows[0].index("#...")


def test_an_unpriced_model_and_a_missing_usage_say_so_on_the_row() -> None:
    if PriceTable().dataset_price("gpt-5-codex") is not None:
        pytest.skip("the genai-prices dataset prices gpt-5-codex here")
    rows = [line.text for line in Inspector(analyse_recording(FIXTURES / "failed_stream.jsonl")).timeline(100)]
    assert all("unpriced" in row or "no usage" in row for row in rows)
    assert any("no usage" in row for row in rows)  # the cut stream reported no usage


def test_a_chatgpt_login_s_costs_are_labelled_api_equivalent(priced: Path) -> None:
    inspector = Inspector(analyse_recording(FIXTURES / "backend_chatgpt.jsonl"))
    assert inspector.api_equivalent()
    assert not Inspector(analyse_recording(FIXTURES / "backend_apikey.jsonl")).api_equivalent()
    doc = inspector.cost_document
    head = inspector.turn_lines(1, "cost")[0].text
    assert head.startswith(f"Cost  {usd_text(doc['total']['usd'], api_equivalent=True)}")
    assert "API-eq." in head and "billed by plan" in head


@pytest.mark.parametrize("name", ["subagent", "compaction", "remote_compaction", "odd_input"])
def test_the_cost_view_is_ctxscope_costs_document_whole(priced: Path, name: str) -> None:
    path = recording(name)
    inspector = Inspector(load(path).analysis)  # as the app reads it
    cli = _cli_cost(path, priced)
    assert json.loads(json.dumps(inspector.cost_document)) == cli
    # and the view shows its figures: each request's cost, the total, each thread's and kind's sum
    lines = inspector.turn_lines(1, "cost", width=100)
    text = "\n".join(line.text for line in lines)
    total = cli["total"]
    assert isinstance(total, dict)
    assert f"Cost  {usd_text(total['usd'])}" in text
    turns = cli["turns"]
    assert isinstance(turns, list)
    for turn in turns:
        (row,) = [line.text for line in lines if line.action == ShowTurn(turn["turn"])]  # Enter goes to it
        reported = bool(turn["input_tokens"] or turn["output_tokens"])
        assert short_usd(turn["usd"], reported=reported) in row and f"{turn['input_tokens']:,}" in row
        assert f"{turn['cached_tokens']:,}" in row and f"{turn['output_tokens']:,}" in row
    kinds = cli["kinds"]
    assert isinstance(kinds, list)
    if any(k["kind"] != "turn" for k in kinds):  # compactions and side requests apart
        assert "Apart: compactions and side requests" in text
        assert any(line.strip().startswith("compactions") for line in text.splitlines())


def test_the_cost_view_breaks_down_the_turn_and_fits_a_narrow_pane(priced: Path) -> None:
    inspector = Inspector(analyse_recording(SUBAGENT))
    doc = inspector.cost_document
    turn3 = next(t for t in doc["turns"] if t["turn"] == 3)
    lines = inspector.turn_lines(3, "cost", width=43)  # the turn pane at 100 columns
    text = [line.text for line in lines]
    start = text.index(next(t for t in text if t.startswith("Turn 3")))
    assert "agent Bacon" in text[start]
    detail = {" ".join(t.split()[:-1]): t.split()[-1] for t in text[start + 1 : start + 6]}
    assert detail["input"] == f"{turn3['input_tokens']:,}" and detail["cached"] == f"{turn3['cached_tokens']:,}"
    uncached = turn3["input_tokens"] - turn3["cached_tokens"] - turn3["cache_write_tokens"]
    assert detail["uncached"] == f"{uncached:,}"
    # each request on two rows where the pane is narrow: its cost, then its tokens, none cut
    request = next(line for line in lines if line.action == ShowTurn(3))
    first, *tokens = request.text.split("\n")
    assert first.startswith(">") and short_usd(turn3["usd"]) in first
    assert "in 5.5k" in tokens[0] and "reason. 10" in tokens[-1] and all(len(r) <= 42 for r in (first, *tokens))


def test_the_agents_view_is_the_analysis_tree_with_its_costs(priced: Path) -> None:
    analysis = analyse_recording(SUBAGENT)
    root, child = agent_tree(analysis)
    inspector = Inspector(analysis)
    sums = {a["agent"]: a for a in inspector.cost_document["agents"]}
    lines = inspector.turn_lines(2, "agents", width=76)
    text = [line.text for line in lines]
    head_main = next(t for t in text if t.lstrip("> ").startswith(f"{root.name}  T1"))
    assert "2 requests" in head_main and short_usd(sums["main"]["usd"]) in head_main
    head_child = next(t for t in text if f"└ {child.name}" in t)
    assert "1 request" in head_child and short_usd(sums[child.name]["usd"]) in head_child
    assert f"spawned by main in turn {child.spawned_in}, result in turn {child.result_in}" in head_child
    assert text.index(head_main) < text.index(head_child)  # the child under its parent
    spawn = next(t for t in text if t.strip().startswith("turn 1"))
    assert f"(spawns {child.name})" in spawn and "spawn_agent" in spawn
    back = next(t for t in text if "turn 2" in t)
    assert back.startswith(">") and f"({child.name}'s result)" in back  # the turn shown is marked
    assert all(len(r) <= 76 for t in text for r in t.split("\n"))
    # every agent line and turn line moves the timeline
    actions = [line.action for line in lines if line.action is not None]
    assert ShowTurn(child.turns[0]) in actions and {ShowTurn(n) for n in (1, 2, 3)} <= set(actions)


def test_a_recording_without_spawned_agents_says_so() -> None:
    inspector = Inspector(analyse_recording(FIXTURES / "compaction.jsonl"))
    text = [line.text for line in inspector.turn_lines(1, "agents")]
    assert text[0] == "Agents  1 agent, 0 spawned agents"
    assert any("no agent was spawned" in t for t in text)


@pytest.mark.anyio
async def test_dollar_and_a_open_the_views_and_enter_moves_the_timeline(priced: Path) -> None:
    async with running(SUBAGENT, size=(120, 40)) as (_, screen, pilot):
        assert isinstance(screen, MainScreen)
        await pilot.press("dollar_sign")
        await settle(pilot)
        pane = screen.query_one("#turn", LinesView)
        assert screen.view == "cost" and pane.lines[0].text.startswith("Cost  $")
        assert pane.current_action == ShowTurn(1)  # the cursor on the shown turn's request
        await pilot.press("a")
        await settle(pilot)
        assert screen.view == "agents" and pane.lines[0].text.startswith("Agents  2 agents")
        # Enter on the spawned agent: the timeline moves to its first turn
        child = next(i for i, line in enumerate(pane.lines) if "└ " in line.text)
        screen.show_pane("turn")
        pane.highlighted = child
        await pilot.press("enter")
        await settle(pilot)
        assert screen.current == 3 and screen.query_one(Timeline).highlighted_turn() == 3
        assert pane.current_action == ShowTurn(3)
        # Enter on the parent's spawn turn: back to turn 1
        pane.highlighted = next(i for i, line in enumerate(pane.lines) if "(spawns " in line.text)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.current == 1 and screen.query_one(Timeline).highlighted_turn() == 1
        assert "view agents" in str(screen.query_one("#status").render())


@pytest.mark.parametrize("name", ["subagent", "compaction", "remote_compaction", "odd_input", "backend_chatgpt"])
def test_no_line_of_the_cost_and_agents_views_is_wider_than_the_pane(priced: Path, name: str) -> None:
    """From the one-pane 80-column layout down to the 100-column turn pane (43 columns) and below:
    what does not fit wraps onto more rows (a request's tokens, a sentence), never off the edge."""
    inspector = Inspector(load(recording(name)).analysis)
    for view in ("cost", "agents"):
        for width in (40, 43, 64, 76, 120):
            for number in inspector.numbers:
                rows = [
                    row for line in inspector.turn_lines(number, view, width=width) for row in line.text.split("\n")
                ]
                assert max(len(row) for row in rows) <= width, (view, width, number)


@pytest.mark.anyio
async def test_enter_on_a_composition_bar_goes_to_its_turn() -> None:
    async with running(recording("codex"), size=(120, 40)) as (_, screen, pilot):
        await pilot.press("down", "x")
        await settle(pilot)
        pane = screen.query_one("#turn", LinesView)
        bar = next(i for i, line in enumerate(pane.lines) if line.action == ShowTurn(1))
        screen.show_pane("turn")
        pane.highlighted = bar
        await pilot.press("enter")
        await settle(pilot)
        assert screen.current == 1 and screen.query_one(Timeline).highlighted_turn() == 1
        assert pane.lines[0].text.startswith("Context composition at turn 1")

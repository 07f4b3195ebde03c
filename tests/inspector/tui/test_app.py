"""The inspector app driven with Pilot: open, navigate, panes, mark-and-diff, search, filter,
palette, folds, items, bad input."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from ctxscope.inspector.tui.app import InspectorApp
from ctxscope.inspector.tui.screens.help import COMPARE_KEYS
from ctxscope.inspector.tui.screens.item import ItemScreen
from ctxscope.inspector.tui.screens.loading import LoadingScreen
from ctxscope.inspector.tui.screens.main import MainScreen
from ctxscope.inspector.tui.snapshot import settle
from ctxscope.inspector.tui.viewmodel.actions import OpenItem, ShowTurn, ToggleFold
from ctxscope.inspector.tui.widgets import LinesView, Timeline
from ctxscope.inspector.tui.widgets.render import HIT, to_text
from ctxscope.proxy.store import RecordingWriter
from tests.inspector.exchange_support import Script, body, completed, message
from tests.inspector.tui.conftest import recording, running

pytestmark = pytest.mark.anyio


def lines(screen: MainScreen, pane: str) -> list[str]:
    view = screen.query_one(f"#{pane}", LinesView)
    return [line.text for line in view.lines]


async def test_opens_on_the_first_turn_with_every_turn_listed() -> None:
    async with running(recording("compaction")) as (app, screen, _):
        assert len(screen.query_one(Timeline).lines) == 5
        assert screen.current == 1
        assert lines(screen, "turn")[0].startswith("Turn 1")
        assert lines(screen, "world")[0] == "World state at turn 1"
        assert not [w for w in app.workers if w.error is not None]


async def test_moving_down_the_timeline_shows_each_turn() -> None:
    async with running(recording("compaction")) as (_, screen, pilot):
        await pilot.press("down", "j")
        await settle(pilot)
        assert screen.current == 3
        assert lines(screen, "turn")[0].startswith("Turn 3")
        await pilot.press("k")
        await settle(pilot)
        assert lines(screen, "turn")[0].startswith("Turn 2")


async def test_holding_a_key_down_leaves_the_turn_under_the_cursor_on_screen() -> None:
    async with running(recording("compaction")) as (_, screen, pilot):
        await pilot.press(*["down"] * 10, "up")
        await settle(pilot)
        assert screen.current == 4
        assert lines(screen, "turn")[0].startswith("Turn 4")


async def test_tab_switches_panes_and_narrow_terminals_show_fewer() -> None:
    async with running(recording("world"), size=(120, 40)) as (_, screen, pilot):
        shown = [p for p in ("timeline", "turn", "world") if screen.query_one(f"#{p}").display]
        assert shown == ["timeline", "turn", "world"]
        await pilot.press("tab")
        assert screen.focused is screen.query_one("#turn")
    async with running(recording("world"), size=(110, 30)) as (_, screen, pilot):
        shown = [p for p in ("timeline", "turn", "world") if screen.query_one(f"#{p}").display]
        assert shown == ["timeline", "turn"]
        await pilot.press("tab", "tab")
        shown = [p for p in ("timeline", "turn", "world") if screen.query_one(f"#{p}").display]
        assert shown == ["timeline", "world"]
    async with running(recording("world"), size=(80, 24)) as (_, screen, pilot):
        shown = [p for p in ("timeline", "turn", "world") if screen.query_one(f"#{p}").display]
        assert shown == ["timeline"]
        await pilot.press("tab")
        shown = [p for p in ("timeline", "turn", "world") if screen.query_one(f"#{p}").display]
        assert shown == ["turn"]


async def test_mark_then_move_diffs_against_the_marked_turn() -> None:
    async with running(recording("world")) as (_, screen, pilot):
        await pilot.press("m", "down", "down")
        await settle(pilot)
        assert screen.current == 3
        assert lines(screen, "turn")[1].strip() == "vs turn 1 (marked)"
        assert lines(screen, "timeline")[0].startswith("M")


async def test_search_jumps_to_the_hit_and_n_moves_on() -> None:
    async with running(recording("compaction")) as (_, screen, pilot):
        await pilot.press("slash")
        await pilot.press(*"FAILED", "enter")
        await settle(pilot)
        assert screen.current == 2
        await pilot.press("n")
        await settle(pilot)
        assert screen.current == 2  # the only hit: n wraps to it


async def test_search_lands_on_the_item_and_n_steps_hit_by_hit_across_turns() -> None:
    async with running(recording("world")) as (_, screen, pilot):
        await pilot.press("slash")
        await pilot.press(*"repo", "enter")
        await settle(pilot)
        turn = screen.query_one("#turn", LinesView)
        seen = [(screen.current, turn.current_action)]
        for _ in range(4):
            await pilot.press("n")
            await settle(pilot)
            seen.append((screen.current, turn.current_action))
        # four hits, two in each of turns 1 and 2: n visits each item, then wraps to the first
        assert seen == [
            (1, OpenItem(1, 0)), (1, OpenItem(1, 1)), (2, OpenItem(2, 4)), (2, OpenItem(2, 5)), (1, OpenItem(1, 0))
        ]  # fmt: skip
        assert "search 'repo': 1 of 4 hits" in str(screen.query_one("#status", Static).content)
        shown = next(line for line in turn.lines if "repo" in line.text)
        assert any(span.style == HIT for span in to_text(shown, turn.needle).spans)  # the match stands out
        await pilot.press("N")
        await settle(pilot)
        assert (screen.current, turn.current_action) == (2, OpenItem(2, 5))


async def test_one_hit_is_one_hit_and_the_header_shows_filter_and_search_together() -> None:
    async with running(recording("world")) as (_, screen, pilot):
        await pilot.press("f")
        await pilot.press(*"changed:goal", "enter")
        await pilot.press("slash")
        await pilot.press(*"parser", "enter")
        await settle(pilot)
        status = str(screen.query_one("#status", Static).content)
        assert "1 of 1 hit" in status and "1 hits" not in status
        assert "filter 'changed:goal'" in status


async def test_filter_shows_only_matching_turns() -> None:
    async with running(recording("compaction")) as (_, screen, pilot):
        await pilot.press("f")
        await pilot.press(*"kind:compaction", "enter")
        await settle(pilot)
        assert [line.action for line in screen.query_one(Timeline).lines] == [ShowTurn(5)]
        assert screen.current == 5
        await pilot.press("f")
        await pilot.press(*"colour:red", "enter")
        await settle(pilot)
        assert len(screen.query_one(Timeline).lines) == 1  # a bad filter changes nothing


async def test_a_filter_moves_the_turn_pane_to_the_first_turn_it_shows() -> None:
    """The tour's recording, on turn 1: `tool:apply_patch` hides it; the pane shows the first
    turn the filter keeps, not the hidden one."""
    tour = Path(__file__).parents[2] / "fixtures" / "inspector" / "real" / "tour.jsonl"
    async with running(tour) as (_, screen, pilot):
        assert screen.current == 1
        await pilot.press("f")
        await pilot.press(*"tool:apply_patch", "enter")
        await settle(pilot)
        shown = [line.action.number for line in screen.query_one(Timeline).lines if isinstance(line.action, ShowTurn)]
        assert shown and 1 not in shown
        assert screen.current == shown[0]
        assert screen.query_one("#turn", LinesView).lines[0].text.startswith(f"Turn {screen.current} ")


async def test_palette_goes_to_a_turn() -> None:
    async with running(recording("compaction")) as (_, screen, pilot):
        await pilot.press("ctrl+p")
        await pilot.press(*"turn 4")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.current == 4
        assert lines(screen, "turn")[0].startswith("Turn 4")


async def test_palette_diffs_any_two_turns() -> None:
    async with running(recording("world")) as (_, screen, pilot):
        await pilot.press("ctrl+p")
        await pilot.press(*"diff 1 with 3")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.current == 3
        assert lines(screen, "turn")[1].strip() == "vs turn 1 (marked)"


async def test_enter_opens_a_fold_and_an_item() -> None:
    async with running(recording("world"), turn=3, pane="turn") as (app, screen, pilot):
        turn = screen.query_one("#turn", LinesView)
        fold = next(
            i
            for i, line in enumerate(turn.lines)
            if isinstance(line.action, ToggleFold) and line.action.fold_id.startswith("input")
        )
        turn.highlighted = fold
        await pilot.press("enter")
        await settle(pilot)
        assert sum(1 for text in lines(screen, "turn") if text.startswith("  = #")) == 8
        item = next(i for i, line in enumerate(turn.lines) if line.action == OpenItem(3, 9))
        turn.highlighted = item
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ItemScreen)
        assert "ship the parser" in app.screen.detail.text
        await pilot.press("escape")
        assert app.screen is screen


async def test_views_and_world_jumps() -> None:
    async with running(recording("world")) as (_, screen, pilot):
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.current == 2
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.current == 3
        await pilot.press("left_square_bracket", "t")
        await settle(pilot)
        assert screen.current == 2 and lines(screen, "turn")[0].startswith("Tokens of turn 2")
        await pilot.press("question_mark")
        assert type(screen.app.screen).__name__ == "HelpScreen"


async def test_export_writes_the_turn_as_markdown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    async with running(recording("world"), turn=2) as (_, _screen, pilot):
        await pilot.press("e")
    written = tmp_path / "world-turn2.md"
    assert "cwd" in written.read_text()
    assert stat.S_IMODE(written.stat().st_mode) == 0o600  # owner-only, like every file ctxscope writes


async def test_a_file_that_is_not_a_recording_says_so_in_the_app(tmp_path: Path) -> None:
    bad = tmp_path / "notes.jsonl"
    bad.write_text("hello\n")
    app = InspectorApp(bad)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen  # the loading screen says why: there is no analysis to open with
        assert isinstance(screen, LoadingScreen) and screen.error is not None
        assert "not a ctxscope recording" in screen.error
        assert str(screen.query_one("#loading-message", Static).content).startswith("error: ")
        assert "error" in str(screen.query_one("#status", Static).content)


async def test_an_empty_recording_says_it_has_no_turns(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    with RecordingWriter(empty, meta={"mode": "test"}):
        pass
    async with running(empty) as (_, screen, _pilot):
        assert lines(screen, "turn") == ["empty.jsonl has no model requests to show"]
        assert screen.query_one(Timeline).option_count == 0


async def test_a_600_kb_item_opens_truncated_and_expands(tmp_path: Path) -> None:
    script = Script()
    script.request(body([message("user", "y" * 600_000)]), response=completed("r1"))
    path = script.write(tmp_path / "huge.jsonl")
    async with running(path, pane="turn") as (app, screen, pilot):
        turn = screen.query_one("#turn", LinesView)
        turn.highlighted = next(i for i, line in enumerate(turn.lines) if line.action == OpenItem(1, 0))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.detail.truncated > 0
        await pilot.press("x")
        assert app.screen.detail.truncated == 0 and len(app.screen.detail.text) == 600_000
        assert isinstance(screen.query_one("#timeline"), OptionList)


async def test_w_wraps_the_turn_view_in_place_and_the_help_wraps_at_80_columns() -> None:
    async with running(recording("world"), size=(80, 24)) as (app, screen, pilot):
        await pilot.press("tab", "W")
        turn = screen.query_one("#turn", LinesView)
        assert turn.wrap and turn.has_class("-wrap")
        assert turn.get_option_at_index(0).prompt.no_wrap is False  # type: ignore[union-attr]
        await pilot.press("W")
        assert not turn.wrap
        await pilot.press("question_mark")
        await settle(pilot)
        helper = app.screen.query_one("#help-table", LinesView)
        assert helper.wrap and any(line.text.startswith("gone") for line in helper.lines)


async def test_the_compare_screen_lists_only_its_own_keys() -> None:
    app = InspectorApp(recording("world"), recording("fork"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        keys = [line.runs[0].text.strip() for line in app.screen.query_one("#help-table", LinesView).lines]
        assert keys == [key for key, _ in COMPARE_KEYS]


async def test_x_shows_the_context_composition_of_the_turn() -> None:
    async with running(recording("codex"), size=(120, 40)) as (_, screen, pilot):
        await pilot.press("down", "x")
        await settle(pilot)
        shown = lines(screen, "turn")
        assert shown[0].startswith("Context composition at turn 2") and screen.view == "composition"
        assert "view composition" in str(screen.query_one("#status", Static).content)
        assert any(line.startswith(">    2 ") and "|" in line for line in shown)  # the bar, threshold drawn


def test_a_long_recording_is_analysed_in_stages_that_end_as_one_load() -> None:
    from ctxscope.inspector.tui.loader import load, load_in_stages

    path = recording("compaction")
    stages = list(load_in_stages(path, first=2))
    # the first two requests, then parts that double (2, then as many as were read), then the rest;
    # the first part estimates what is left from the bytes left, the next ones count the requests
    assert [len(s.analysis.turns) for s in stages] == [2, 4, 5] and [s.pending for s in stages][1:] == [1, 0]
    assert stages[0].pending >= 1
    assert stages[-1].analysis == load(path).analysis
    assert len(list(load_in_stages(path))) == 1  # a short recording: one stage


async def test_the_app_draws_the_first_stage_then_grows_to_the_asked_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ctxscope.inspector.tui.loader as loader

    monkeypatch.setattr(loader, "FIRST_STAGE", 2)
    seen: list[int] = []
    original = MainScreen.show_loaded

    def spy(self: MainScreen, loaded: loader.Loaded) -> None:
        seen.append(len(loaded.analysis.turns))
        original(self, loaded)

    monkeypatch.setattr(MainScreen, "show_loaded", spy)
    async with running(recording("compaction"), turn=4) as (_, screen, _pilot):
        assert seen == [2]  # the screen was first drawn from two turns
        assert screen.current == 4 and screen.pending == 0
        assert len(screen.query_one(Timeline).lines) == 5
        assert "analysing" not in str(screen.query_one("#status", Static).content)


async def test_the_loading_screen_hands_the_main_screen_its_first_analysis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[str, int]] = []
    original = MainScreen.on_mount

    def spy(self: MainScreen) -> None:  # what the main screen holds when it is mounted
        seen.append((type(self.app.screen_stack[-1]).__name__, len(self.inspector.analysis.turns)))
        original(self)

    def loading(self: LoadingScreen) -> None:
        seen.append(("LoadingScreen", 0))
        LoadingScreen.load_first(self)

    monkeypatch.setattr(MainScreen, "on_mount", spy)
    monkeypatch.setattr(LoadingScreen, "on_mount", loading)
    app = InspectorApp(recording("compaction"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # first the recording was read on the loading screen, then the main screen had all 5 turns
        assert isinstance(app.screen, MainScreen) and seen == [("LoadingScreen", 0), ("MainScreen", 5)]
        assert [type(s).__name__ for s in app.screen_stack[1:]] == ["MainScreen"]  # it took the place


async def test_the_header_follows_the_screen_state_through_watchers() -> None:
    async with running(recording("compaction")) as (_, screen, pilot):

        def header() -> str:
            return str(screen.query_one("#status", Static).content)

        screen.current = 3  # state only: the watcher redraws the header
        assert "turn 3 of 5" in header()
        screen.view = "tokens"
        assert "view tokens" in header()
        screen.note = "a word"
        assert header().endswith("| a word")
        screen.pending = 7
        assert "analysing 7 more requests" in header()


async def test_s_sorts_only_in_the_tokens_view() -> None:
    async with running(recording("compaction"), turn=2) as (_, screen, pilot):
        assert screen.check_action("sort_tokens", ()) is False
        sort = screen.inspector.token_sort
        await pilot.press("s")
        await settle(pilot)
        assert screen.inspector.token_sort == sort
        await pilot.press("t")
        await settle(pilot)
        unsorted = lines(screen, "turn")
        await pilot.press("s")
        await settle(pilot)
        assert screen.check_action("sort_tokens", ()) is True and screen.inspector.token_sort != sort
        assert lines(screen, "turn") != unsorted  # the view drawn again in the new order

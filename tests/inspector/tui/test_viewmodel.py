"""The view model without Textual: timeline rows, turn diffs with folds, world panel, items."""

from __future__ import annotations

from collections.abc import Callable

from ctxscope.inspector.analysis import Analysis, analyse_exchanges
from ctxscope.inspector.analysis.answers import Answer, AnswerItem
from ctxscope.inspector.tui.viewmodel import TRUNCATE_CHARS, Inspector, Line
from ctxscope.inspector.tui.viewmodel.actions import OpenItem, ShowTurn, ToggleFold
from ctxscope.inspector.tui.viewmodel.lines import short_tokens
from ctxscope.inspector.tui.viewmodel.timeline import TOKEN_LABELS, TimelineRow, short_answer, short_model
from tests.inspector.exchange_support import Script, body, completed, message


def texts(lines: list) -> list[str]:  # type: ignore[type-arg]
    return [line.text for line in lines]


def test_timeline_rows_keep_change_kinds_apart_without_colour(analysed: Callable[[str], Analysis]) -> None:
    rows = texts(Inspector(analysed("compaction")).timeline())
    assert len(rows) == 5
    assert "* initial" in rows[0] and "+ append" in rows[1] and "v COMPACT" in rows[4]
    fork = texts(Inspector(analysed("fork")).timeline())
    assert any("Y FORK" in row for row in fork)
    rewrite = texts(Inspector(analysed("rewrite")).timeline())
    assert any("~ REWRITE" in row for row in rewrite)


def test_timeline_marks_world_changes_and_mode_messages(analysed: Callable[[str], Analysis]) -> None:
    rows = texts(Inspector(analysed("world")).timeline(100))
    assert "mode default → plan" in rows[1] and " append   w  " in rows[1]
    assert "goal set: ship the parser" in rows[2]
    assert " append   w  " not in rows[0] and " initial   " in rows[0]


def test_a_timeline_row_is_its_width_with_the_words_before_the_figures(
    analysed: Callable[[str], Analysis],
) -> None:
    for width in (50, 60, 100, 180):
        rows = texts(Inspector(analysed("world")).timeline(width))
        assert {len(part) for row in rows for part in row.split("\n")} == {width}  # every row of a turn
        goal = next(row for row in rows if "goal" in row)
        assert "goal set: ship the parser" in goal  # wrapped under the figures where it does not fit beside them
        assert goal.index("1.2k") < goal.index("#...")
    inspector = Inspector(analysed("world"))
    narrow, wide = texts(inspector.timeline(50)), texts(inspector.timeline(110))
    assert "gpt-5" not in narrow[0] and "gpt-5" in wide[0]  # the model gives way to the event words
    switch = next(row for row in texts(inspector.timeline(100)) if "mode default → plan" in row)
    assert "\n" not in switch  # the words fit beside the figures (and the cost) at 100 columns: one row
    assert short_model("gpt-5.1-codex-mini", 12) == "gpt-5.1-cod…"  # shortened with an ellipsis, never cut bare
    assert short_model("gpt-5-codex", 12) == "gpt-5-codex"
    failed = texts(Inspector(analysed("failed_stream")).timeline(80))
    assert any(" error " in row for row in failed)


def test_the_short_answer_names_the_call_not_the_reasoning_before_it() -> None:
    reasoning = AnswerItem("reasoning", text="The user wants a listing")
    call = AnswerItem("function_call", name="exec_command", arguments='{"cmd": "ls"}')
    said = short_answer(Answer([reasoning, call]))
    assert (said.head, said.short_head, said.gist) == ("function_call exec_command", "exec_command", '{"cmd": "ls"}')
    assert short_answer(Answer([reasoning])).head == "reasoning"  # only reasoning: that is what it did
    assert short_answer(Answer([], status="cut")).head == "cut"
    row = TimelineRow(2, "T1", "append", "gpt-5", ("mode default → plan",), 1200, 0.1, 900.0, True, True, answer=said)
    narrow = row.line(width=50).text.split("\n")  # about the narrowest timeline pane (100-120 columns)
    assert {len(r) for r in narrow} == {50}
    assert "mode default → plan → exec_command" in " ".join(r.strip() for r in narrow)  # wrapped, never cut


def test_turn_numbers_keep_their_width_past_four_digits() -> None:
    script = Script()
    for n in range(3):
        script.request(body([message("user", f"hi {n}")]), response=completed(f"r{n}"))
    inspector = Inspector(analyse_exchanges(script.exchanges))
    inspector._rows = inspector._rows * 4000  # as many rows as a 12,000-turn recording
    inspector.visible = [1, 2]
    assert texts(inspector.timeline(80))[0].startswith("     1 T1")  # 5 columns for the number


def test_the_answer_in_short_follows_the_event_words(analysed: Callable[[str], Analysis]) -> None:
    rows = texts(Inspector(analysed("world")).timeline(120))
    assert 'mode default → plan → message "done."' in rows[1]
    assert 'goal set: ship the parser → message "done."' in rows[2]
    assert rows[0].index('→ message "done."') < rows[0].index("1.2k")  # before the figures


def test_the_token_figure_says_whether_it_is_reported_or_counted(analysed: Callable[[str], Analysis]) -> None:
    # `world` reports usage on its turns; `failed_stream`'s broken stream reports none, so it is counted
    said: set[str] = set()
    for name in ("world", "failed_stream"):
        analysis = analysed(name)
        for width in (80, 120, 200):
            rows = Inspector(analysis).timeline(width)
            for result, row in zip(analysis.turns, rows, strict=False):
                figure, which = result.tokens.shown
                text = row.text
                assert f"{short_tokens(figure)} {TOKEN_LABELS[which]} " in text.split("\n")[0]
                assert {len(r) for r in text.split("\n")} == {width}  # the label never pushes a row wider
                words = " ".join(r.strip() for r in text.split("\n"))
                assert all(e in words for e in _row_events(result))  # the event words whole, wrapped not cut
                said.add(which)
    assert said == {"reported", "counted"}


def _row_events(result: object) -> list[str]:
    from ctxscope.inspector.analysis.analyse import TurnAnalysis
    from ctxscope.inspector.tui.viewmodel.timeline import timeline_row

    assert isinstance(result, TurnAnalysis)
    return timeline_row(result, world_changed=False).event_words()


def test_requests_that_are_not_turns_are_folded() -> None:
    script = Script()
    script.request(None, endpoint="models", url="http://127.0.0.1:9/v1/models")
    script.request(body([message("user", "hi")]), response=completed("r1"))
    inspector = Inspector(analyse_exchanges(script.exchanges), other_requests=1)
    assert texts(inspector.timeline())[-1].strip() == "+1 other request (not model turns)"


def test_an_appending_turn_folds_what_it_kept(analysed: Callable[[str], Analysis]) -> None:
    inspector = Inspector(analysed("world"))
    lines = texts(inspector.turn_lines(3))
    assert lines[1].strip() == "vs turn 2 (previous in thread)"
    assert any("8 unchanged items #0-#7" in line for line in lines)
    assert any(line.startswith("  + #9") and "<goal>" in line for line in lines)
    assert any("3 unchanged tools" in line for line in lines)


def test_opening_a_fold_lists_its_items_and_stays_open_on_the_next_turn(
    analysed: Callable[[str], Analysis],
) -> None:
    inspector = Inspector(analysed("compaction"))
    fold = next(
        line
        for line in inspector.turn_lines(3)
        if isinstance(line.action, ToggleFold) and line.action.fold_id.startswith("input")
    )
    assert isinstance(fold.action, ToggleFold)
    inspector.toggle_fold(fold.action.fold_id)
    assert sum(1 for line in texts(inspector.turn_lines(3)) if line.startswith("  = #")) == 5
    assert any(line.startswith("  = #0") for line in texts(inspector.turn_lines(4)))


def test_the_marked_turn_is_the_diff_target_of_every_other_turn(analysed: Callable[[str], Analysis]) -> None:
    inspector = Inspector(analysed("world"))
    inspector.toggle_mark(1)
    assert texts(inspector.turn_lines(3))[1].strip() == "vs turn 1 (marked)"
    assert texts(inspector.timeline())[0].startswith("M")
    assert texts(inspector.turn_lines(1))[1].strip() == "(first turn of its thread)"
    inspector.toggle_mark(1)
    assert inspector.marked is None


def test_a_value_that_left_the_context_is_gone_until_it_returns() -> None:
    from tests.inspector.edge_support import _meta, initial_context
    from tests.inspector.exchange_support import fragment

    skill = message("user", fragment("selected_skill", name="demo-skill", path="/s/SKILL.md", text="Say DEMO."))
    context = initial_context()
    first = [*context, message("user", "use $demo-skill"), skill]
    after = [
        message("user", "use $demo-skill"),
        *context,
        message("user", fragment("compaction_summary", summary="s")),
    ]
    script = Script()
    script.request(body(first), response=completed("r1"), headers=_meta("turn"))
    script.request(
        body([*first, message("user", "Summarise")], tools=[]),
        headers=_meta("compaction"),
        response=completed("r2", [message("assistant", "s")]),
    )
    script.request(body(after), response=completed("r3"), headers=_meta("turn"))  # the skill is not kept
    script.request(body([*after, message("user", "again"), skill]), response=completed("r4"), headers=_meta("turn"))
    inspector = Inspector(analyse_exchanges(script.exchanges))

    def selected(turn: int) -> Line:
        return next(line for line in inspector.world(turn) if line.text.startswith("selected"))

    assert "demo-skill" in selected(2).text
    assert "gone at turn 3" in selected(3).text and "demo-skill" not in selected(3).text
    assert selected(3).runs[-1].style == "gone"
    assert "@4*" in selected(4).text and "demo-skill" in selected(4).text  # back, and no longer gone


def test_the_world_jump_hint_is_in_words_and_the_signs_are_explained(
    analysed: Callable[[str], Analysis],
) -> None:
    inspector = Inspector(analysed("world"))
    lines = texts(inspector.world(1))
    signs_at = lines.index(next(line for line in lines if line.startswith("signs:")))
    hint = lines[signs_at - 1]
    assert "[ previous change: none" in hint and "] next change: turn 2" in hint
    assert lines[1].startswith("@N: value since turn N")
    legend = " ".join(lines[signs_at:])
    signs = ("w world,", "c cache break", "! error", "rep/cnt tokens reported/counted", "#... window")
    assert all(sign in legend for sign in signs)
    wide = texts(inspector.world(2, width=120))
    assert any("/repo/pkg" in line and "/tmp" in line for line in wide)  # the width follows the pane


def test_world_panel_says_where_each_value_changed(analysed: Callable[[str], Analysis]) -> None:
    lines = texts(Inspector(analysed("world")).world(3))
    cwd = next(line for line in lines if line.startswith("cwd"))
    goal = next(line for line in lines if line.startswith("goal"))
    sandbox = next(line for line in lines if line.startswith("sandbox"))
    assert "@2 " in cwd and "/repo/pkg" in cwd
    assert "@3*" in goal and "ship the parser" in goal
    assert "@1 " in sandbox


def test_compaction_and_tokens_views(analysed: Callable[[str], Analysis]) -> None:
    inspector = Inspector(analysed("compaction"))
    compaction = texts(inspector.turn_lines(5, "compaction"))
    assert "  tokens: 1,581 -> 411" in compaction
    # old positions (the history before) and new ones (the compacted window) are labelled as such
    assert any("summarised (gone)  (5 items, old #: turn 4's positions)" in line for line in compaction)
    assert any(line.startswith("re-materialised context") and "new #: turn 5's" in line for line in compaction)
    assert not any("WARNING" in line for line in compaction)
    assert "not the first turn after a compaction" in texts(inspector.turn_lines(2, "compaction"))[0]
    tokens = texts(inspector.turn_lines(5, "tokens"))
    counted = [line.split() for line in tokens if line.startswith("  ") and "#" in line]
    numbers = [int(parts[1].replace(",", "")) for parts in counted]
    assert numbers == sorted(numbers, reverse=True)
    assert any("reported input" in line and "1,200" in line for line in tokens)
    inspector.cycle_token_sort()
    by_name = [line.split()[0] for line in texts(inspector.turn_lines(5, "tokens")) if "#" in line]
    assert by_name == sorted(by_name)


def test_a_growing_compaction_is_warned_about() -> None:
    script = Script()
    headers = {"session-id": "s", "x-codex-turn-metadata": '{"request_kind": "compaction"}'}
    history = [message("user", "hi"), message("assistant", "ok")]
    script.request(body(history), response=completed("r1"), headers={"session-id": "s"})
    summary = "<summary>" + " padded summary" * 200 + "</summary>"
    script.request(body([*history, message("user", "summarise")]), response=completed("r2"), headers=headers)
    script.request(body([message("user", summary)]), response=completed("r3"), headers={"session-id": "s"})
    inspector = Inspector(analyse_exchanges(script.exchanges))
    lines = texts(inspector.turn_lines(3, "compaction"))
    assert any("WARNING: the compacted context is not smaller" in line for line in lines)


def test_a_600_kb_single_line_item_is_truncated_until_expanded() -> None:
    script = Script()
    huge = "x" * 600_000
    script.request(body([message("user", huge)]), response=completed("r1"))
    inspector = Inspector(analyse_exchanges(script.exchanges))
    detail = inspector.item(OpenItem(1, 0))
    assert detail is not None and len(detail.text) == TRUNCATE_CHARS
    assert detail.truncated == 600_000 - TRUNCATE_CHARS
    full = inspector.item(OpenItem(1, 0), full=True)
    assert full is not None and full.truncated == 0 and len(full.text) == 600_000
    assert inspector.item(OpenItem(1, 7)) is None


def test_filter_and_search_through_the_inspector(analysed: Callable[[str], Analysis]) -> None:
    inspector = Inspector(analysed("compaction"))
    inspector.set_filter("kind:compaction")
    assert [line.action for line in inspector.timeline()] == [ShowTurn(5)]
    assert "1 shown" in inspector.timeline_title(5)
    inspector.set_filter("")
    assert len(inspector.timeline()) == 5
    inspector.find("FAILED")
    hit = inspector.next_hit(1)
    assert hit is not None and hit.turn == 2
    assert inspector.next_hit(2) == hit  # wraps around to the only hit


def test_a_changed_600_kb_item_is_compared_whole_and_drawn_cut() -> None:
    script = Script()
    before, after = "a" * 600_000, "b" * 600_000
    script.request(body([message("user", before)]), response=completed("r1"), headers={"session-id": "s"})
    script.request(body([message("user", after)]), response=completed("r2"), headers={"session-id": "s"})
    inspector = Inspector(analyse_exchanges(script.exchanges))
    texts_ = texts(inspector.turn_lines(2))
    drawn = [t for t in texts_ if "more characters" in t]
    assert len(drawn) == 2 and all(len(t) < 2_100 for t in drawn)
    assert any("too large to diff line by line" in t for t in texts_)  # no character diff attempted


def test_a_tool_call_opens_with_its_arguments_and_its_output(analysed: Callable[[str], Analysis]) -> None:
    inspector = Inspector(analysed("compaction"))
    items = inspector.result(2).turn.items
    call = next(i for i in items if i.type == "function_call")
    output = next(i for i in items if i.type == "function_call_output")
    for position in (call.position, output.position):
        detail = inspector.item(OpenItem(2, position))
        assert detail is not None
        arguments, _, rest = detail.text.partition(f"--- output (item #{output.position}) ---")
        assert "pytest" in arguments and "FAILED tests/test_a.py" in rest


def test_the_composition_bar_stacks_the_kinds_against_the_window_and_the_threshold() -> None:
    from ctxscope.inspector.analysis.composition import Composition
    from ctxscope.inspector.tui.viewmodel.composition import stacked_bar

    half = Composition(1, "T1", 500, 1000, True, 900, by_kind={"tools": 300, "user": 200})
    runs = stacked_bar(half, {"tools": "#", "user": "="}, 20)
    bar = "".join(r.text for r in runs)
    assert bar == "#" * 6 + "=" * 4 + "." * 8 + "|" + "."  # 30 % + 20 % of the window; | at 90 %
    over = Composition(2, "T1", 1200, 1000, True, 900, by_kind={"tools": 1200})
    assert "".join(r.text for r in stacked_bar(over, {"tools": "#"}, 20)) == "#" * 19 + ">"


def test_the_composition_view_draws_the_report_and_names_the_cache_break() -> None:
    from pathlib import Path

    from ctxscope.inspector.analysis import analyse_recording
    from ctxscope.inspector.analysis.composition import composition_report

    # The tour's model switch at turn 7 costs what had been cached (a small fixture's change under the
    # cache's 1,024-token minimum costs nothing, and is no break).
    analysis = analyse_recording(Path(__file__).parents[2] / "fixtures" / "inspector" / "real" / "tour.jsonl")
    inspector = Inspector(analysis)
    report = composition_report(analysis)
    lines = texts(inspector.turn_lines(7, "composition", width=90))
    assert lines[0].startswith("Context composition at turn 7")
    rows = [line for line in lines if line.startswith((">", " ")) and "/ " in line and "k" in line]
    assert [row[1:6].strip() for row in rows] == [str(c.turn) for c in report.turns]
    assert rows[6].startswith(">    7") and {len(row.rstrip()) for row in rows} == {len(rows[0].rstrip())}
    here = report.turns[6]
    assert f"turn 7: {here.total:,} tokens" in "\n".join(lines)
    assert any(line.startswith("cache break at model: model switch gpt-5-codex → gpt-5-mini") for line in lines)
    assert "cache break at model" in texts(inspector.turn_lines(7))[2]
    inspector.mark_cache_breaks()
    flags = [row[20:23] for row in texts(inspector.timeline(90))]
    assert "c" in flags[6] and "c" not in flags[5]  # (`w`: the model switch is a world change too)


def test_each_websocket_frame_names_the_connection_that_carried_it() -> None:
    script = Script()
    for n, connection in enumerate((10, 10, 20)):  # the handshake exchange's id, as the recorder notes it
        exchange = script.request(body([message("user", f"hi {n}")]), response=completed(f"r{n}"), endpoint="websocket")
        exchange.meta.update({"transport": "websocket", "connection": connection})
    script.request(body([message("user", "over http")]), response=completed("r3"))
    inspector = Inspector(analyse_exchanges(script.exchanges))
    said = [inspector.connection(n) for n in inspector.numbers]
    assert said == [
        "WebSocket connection 1 of 2, frame 1 on it",
        "WebSocket connection 1 of 2, frame 2 on it",
        "WebSocket connection 2 of 2, frame 1 on it",
        None,
    ]
    assert "  via WebSocket connection 2 of 2, frame 1 on it" in texts(inspector.turn_lines(3))

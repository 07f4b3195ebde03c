"""Codex's session-title requests (`thread_source: "thread_title"`) are side requests, folded together."""

from __future__ import annotations

import json
from pathlib import Path

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.tui.viewmodel.actions import OpenSummary, ShowTurn
from ctxscope.inspector.tui.viewmodel.session import Inspector
from tests.cli_support import run_cli
from tests.inspector.exchange_support import Script, body, completed, initial_context, message
from tests.inspector.one_account import assert_one_account


def _headers(thread: str, source: str) -> dict[str, str]:
    meta = {"thread_id": thread, "thread_source": source, "request_kind": "turn"}
    return {"session-id": thread, "x-codex-turn-metadata": json.dumps(meta)}


def _recording(path: Path) -> Path:
    script = Script()
    context = initial_context()
    first = [*context, message("user", "fix the parser")]
    second = [*first, message("assistant", "done."), message("user", "now the lexer")]
    for number, (items, ask) in enumerate(((first, "fix the parser"), (second, "now the lexer")), start=1):
        main = _headers("main", "user")
        script.request(body(items), response=completed(f"resp_main{number}"), headers=main)
        title = [message("user", f"Write a short title for: {ask}")]
        script.request(
            body(title, tools=[]),
            response=completed(f"resp_title{number}", [message("assistant", "Parser fix")]),
            headers=_headers(f"title-{number}", "thread_title"),  # each on a thread of its own
        )
    return script.write(path)


def test_title_requests_are_side_requests_in_one_folded_thread(tmp_path: Path) -> None:
    analysis = analyse_recording(_recording(tmp_path / "titles.jsonl"))
    [main, side] = analysis.threads
    assert main.side is None and [t.number for t in main.turns] == [1, 3]
    assert side.side == "thread_title" and [t.number for t in side.turns] == [2, 4]
    assert [t.turn.side for t in analysis.turns] == [None, "thread_title", None, "thread_title"]
    # the conversation's second turn still follows its first
    assert analysis.turns[2].change.kind == "append"

    out = run_cli("diff", str(tmp_path / "titles.jsonl")).stdout
    assert "thread S1  2 side requests (title), folded: turns 2, 4" in out
    assert "(2 turns, 1 thread; side requests: title 2;" in out
    assert "turn 2 " not in out and "turn 3 " in out
    doc = json.loads(run_cli("diff", str(tmp_path / "titles.jsonl"), "--format", "json").stdout)
    assert [t["side"] for t in doc["threads"]] == [None, "thread_title"]
    assert doc["side_requests"] == {"thread_title": 2}
    assert [t["beside"] for t in doc["turns"]] == [None, "T1", None, "T1"]


def test_title_requests_are_never_diffed_against_one_another(tmp_path: Path) -> None:
    analysis = analyse_recording(_recording(tmp_path / "titles.jsonl"))
    titles = [t for t in analysis.turns if t.turn.side]
    # Each title request is told on its own: no "rewrite", no "prefix broken at item …".
    assert [t.change.kind for t in titles] == ["initial", "initial"]
    assert not any("prefix broken" in note for t in titles for note in t.notes)
    assert [t.turn.beside for t in titles] == ["T1", "T1"]


def test_info_and_diff_count_the_same_threads_with_side_requests_apart(tmp_path: Path) -> None:
    path = _recording(tmp_path / "titles.jsonl")
    info = json.loads(run_cli("info", str(path), "--json").stdout)
    doc = json.loads(run_cli("diff", str(path), "--format", "json").stdout)
    conversations = [t for t in doc["threads"] if t["side"] is None]
    assert info["threads"] == len(conversations) == 1  # was 3: one per title request's thread id
    assert info["turns"] == 2 and info["side_requests"] == doc["side_requests"] == {"thread_title": 2}
    assert "threads     1 (2 turns); side requests: title 2" in run_cli("info", str(path)).stdout
    assert_one_account(path)


def test_two_conversations_without_ids_are_two_threads_in_info_and_diff(tmp_path: Path) -> None:
    # The AI SDK's generateText then streamText: no session header, no prompt_cache_key.
    script = Script()
    script.request(body([message("user", "what is 2+2?")]), response=completed("resp_a"))
    script.request(body([message("user", "write a haiku")]), response=completed("resp_b"))
    path = script.write(tmp_path / "two.jsonl")
    info = json.loads(run_cli("info", str(path), "--json").stdout)
    doc = json.loads(run_cli("diff", str(path), "--format", "json").stdout)
    assert info["threads"] == len(doc["threads"]) == 2  # info said 1: it counted explicit ids only
    assert info["turns"] == len(doc["turns"]) == 2
    assert_one_account(path)


def test_the_tui_shows_title_requests_by_kind_dimmed_never_as_rewrites(tmp_path: Path) -> None:
    analysis = analyse_recording(_recording(tmp_path / "titles.jsonl"))
    inspector = Inspector(analysis)
    rows = inspector.timeline()
    for number in (2, 4):
        row = rows[number - 1]
        assert "title" in row.text and "REWRITE" not in row.text and "initial" not in row.text
        assert {run.style for run in row.runs if "title" in run.text} == {"dim"}
    assert "REWRITE" not in " ".join(line.text for line in rows)
    counts = inspector.counts()
    assert (counts.threads, counts.turns, counts.side_requests) == (1, 2, 2)
    assert inspector.timeline_title(None) == "2 turns, 2 side"


def test_the_tui_folds_the_side_requests_away_and_back(tmp_path: Path) -> None:
    inspector = Inspector(analyse_recording(_recording(tmp_path / "titles.jsonl")))
    inspector.toggle_side()
    rows = inspector.timeline(90)
    assert [line.action for line in rows] == [ShowTurn(1), ShowTurn(3), OpenSummary("side")]
    assert rows[-1].text.strip() == "2 side requests folded (h shows them)"
    inspector.toggle_side()
    assert [line.action for line in inspector.timeline(90)] == [ShowTurn(n) for n in (1, 2, 3, 4)]


def test_a_side_request_before_the_first_turn_is_placed_beside_it_when_followed(tmp_path: Path) -> None:
    # Codex opens its socket with a prewarm (and may ask for a title) before the first real turn: only
    # when that turn arrives is the side request's thread known. `inspect --follow` analysed the side
    # request first and kept `beside` None; the batch said T1.
    script = Script()
    title = [message("user", "Write a short title for: fix the parser")]
    script.request(body(title, tools=[]), response=completed("resp_t"), headers=_headers("t", "thread_title"))
    first = [*initial_context(), message("user", "fix the parser")]
    script.request(body(first), response=completed("resp_1"), headers=_headers("main", "user"))
    analysis = assert_one_account(script.write(tmp_path / "title-first.jsonl"))
    assert [(t.turn.side, t.turn.beside) for t in analysis.turns] == [("thread_title", "T1"), (None, None)]


def test_a_title_answer_holding_a_proposed_plan_is_no_plan_event(tmp_path: Path) -> None:
    """Side requests never produce plan, goal or mode events: a test upstream that answers Codex's
    title request with a `<proposed_plan>` block gives a title, not a "plan submitted"."""
    script = Script()
    items = [*initial_context(), message("user", "plan the parser fix")]
    script.request(body(items), response=completed("resp_main1"), headers=_headers("main", "user"))
    plan = "<proposed_plan>\n# Fix the parser\n1. Read it.\n</proposed_plan>"
    script.request(
        body([message("user", "Write a short title for: plan the parser fix")], tools=[]),
        response=completed("resp_title1", [message("assistant", plan)]),
        headers=_headers("title-1", "thread_title"),
    )
    path = script.write(tmp_path / "title-plan.jsonl")
    analysis = assert_one_account(path)
    title = analysis.turn(2)
    # the block is text here twice over: a side request, and no plan mode in its request (issue 39)
    assert title.turn.side == "thread_title" and title.answer.items[0].text == plan
    assert title.mode_events == [] and title.goal_events == []
    doc = json.loads(run_cli("diff", str(path), "--format", "json").stdout)
    assert [t["mode_events"] for t in doc["turns"]] == [[], []]
    assert "plan submitted" not in run_cli("diff", str(path)).stdout

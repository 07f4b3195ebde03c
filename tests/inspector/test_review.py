"""Rough edges found in review: odd but possible requests, and how reports word them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ctxscope.inspector.analysis import analyse_recording, classify_item
from ctxscope.inspector.analysis.items import ItemClassifier
from tests.cli_support import run_cli
from tests.inspector.exchange_support import Script, body, completed, initial_context, message


def test_instructions_that_are_not_a_string_are_diffed_and_counted(tmp_path: Path) -> None:
    script = Script()
    items = [*initial_context(), message("user", "hi")]
    listed = [{"type": "message", "role": "system", "content": "be brief"}]
    script.request(body(items, instructions=listed), response=completed("r1"))  # type: ignore[arg-type]
    script.request(
        body([*items, message("assistant", "ok"), message("user", "more")]), response=completed("r2")
    )
    path = script.write(tmp_path / "listed.jsonl")

    second = analyse_recording(path).turn(2)
    assert any('"content": "be brief"' in line for line in second.instructions_diff)
    assert analyse_recording(path).turn(1).tokens.by_kind["instructions"] > 0
    for args in (["diff", str(path), "--turn", "2"], ["show", str(path), "--turn", "1"]):
        proc = run_cli(*args, "--no-color")
        assert proc.returncode == 0, proc.stderr


def test_reports_say_each_change_once_and_name_missing_turns(edge: Callable[[str], Path]) -> None:
    world = str(edge("world"))
    text = run_cli("diff", world, "--no-color").stdout
    assert text.count("gpt-5-codex → gpt-5.1-codex") == 1, "the model change is said once"
    assert "reasoning effort medium → high" in text and '"effort"' not in text
    detail = run_cli("diff", world, "--turn", "1", "--no-color").stdout
    assert "first turn of its thread" in detail and "None" not in detail

    md = run_cli("diff", world, "--format", "markdown", "--turn", "1").stdout
    assert "| 1 | T1 | initial | 3 | 0/+3/-0 | 477 | 1200 | 0 |" in md, "0 cached is a number, not blank"
    assert "## Turn 1 (first turn of its thread)" in md

    longer = str(edge("compaction"))
    compared = run_cli("compare", longer, world, "--format", "markdown").stdout
    assert "| 5 | no | only in A |" in compared


def test_classifier_reuses_a_recent_prefix_only_when_it_is_one() -> None:
    context = initial_context()
    a = [*context, message("user", "task A")]
    b = [*context, message("user", "task B")]  # another thread, interleaved
    a2 = [*a, message("assistant", "done A"), message("user", "next")]
    a_edited = [*context, message("user", "task A, edited"), *a2[len(a) :]]
    classifier = ItemClassifier()
    for items in (a, b, a2, b, a_edited, a2):
        got = classifier.classify(items)
        assert got == [classify_item(n, raw) for n, raw in enumerate(items)]


def test_compare_says_when_the_tasks_differ(edge: Callable[[str], Path]) -> None:
    same_task = json.loads(
        run_cli("compare", str(edge("backend_apikey")), str(edge("backend_chatgpt")), "-f", "json").stdout
    )
    assert same_task["notes"] == []
    other = run_cli("compare", str(edge("tools_reordered")), str(edge("world")), "--no-color").stdout
    assert 'note: the first user messages differ ("hi" vs "look around")' in other


def test_markdown_warnings_end_before_the_table(edge: Callable[[str], Path]) -> None:
    md = run_cli("diff", str(edge("chain")), "--format", "markdown").stdout.splitlines()
    table = md.index(next(line for line in md if line.startswith("| turn |")))
    assert md[table - 2].startswith("> warning: ") and md[table - 1] == ""


def test_markdown_code_spans_survive_backticks(tmp_path: Path) -> None:
    script = Script()
    items = [*initial_context(), message("user", "rename `f` to `g`")]
    script.request(body(items), response=completed("r1"))
    path = script.write(tmp_path / "ticks.jsonl")
    md = run_cli("diff", str(path), "--turn", "1", "--format", "markdown").stdout
    assert '- added ``user: "rename `f` to `g`"`` (' in md

"""Item alignment and line/character diffs of two turns."""

from __future__ import annotations

import json

from ctxscope.inspector.analysis.item_diff import (
    CHAR_DIFF_CAP,
    TEXT_DIFF_CAP,
    diff_items,
    diff_text,
    item_text,
    pretty,
)
from ctxscope.inspector.analysis.items import ItemClassifier, classify_item
from tests.inspector.exchange_support import call, message


def _items(raw: list[object]) -> list:  # type: ignore[type-arg]
    return ItemClassifier().classify(list(raw))


def test_one_inserted_item_is_one_addition_between_two_unchanged_runs() -> None:
    before = [message("user", f"m{i}") for i in range(6)]
    after = [*before[:3], message("user", "inserted"), *before[3:]]
    ops = diff_items(_items(before), _items(after))
    assert [(o.op, o.count) for o in ops] == [("same", 3), ("added", 1), ("same", 3)]
    assert ops[1].after is not None and ops[1].after.text == "inserted"


def test_a_replaced_item_of_the_same_kind_is_changed_and_others_removed_or_added() -> None:
    before = _items([message("user", "a"), message("user", "old"), *call("c1", "ls")])
    after = _items([message("user", "a"), message("user", "new")])
    ops = diff_items(before, after)
    assert [o.op for o in ops] == ["same", "changed", "removed", "removed"]
    assert ops[1].before is not None and ops[1].before.text == "old"


def test_text_diff_locates_changed_characters_inside_a_changed_line() -> None:
    diff = diff_text("keep\nsandbox: read-only\ntail", "keep\nsandbox: workspace-write\ntail")
    ops = [(line.op, line.text) for line in diff.lines]
    assert ops == [
        ("same", "keep"),
        ("removed", "sandbox: read-only"),
        ("added", "sandbox: workspace-write"),
        ("same", "tail"),
    ]
    removed, added = diff.lines[1], diff.lines[2]
    assert [removed.text[s:e] for s, e in removed.spans] == ["read", "only"]
    assert [added.text[s:e] for s, e in added.spans] == ["workspace", "write"]
    assert diff.char_level and not diff.whole


def test_equal_texts_have_no_changes() -> None:
    diff = diff_text("a\nb", "a\nb")
    assert not diff.changed and [line.op for line in diff.lines] == ["same", "same"]


def test_lines_past_the_character_cap_are_diffed_by_line_only() -> None:
    long_a, long_b = "x" * (CHAR_DIFF_CAP + 1), "y" * (CHAR_DIFF_CAP + 1)
    diff = diff_text(long_a, long_b)
    assert not diff.char_level
    assert [(line.op, line.spans) for line in diff.lines] == [("removed", ()), ("added", ())]


def test_texts_past_the_size_cap_are_shown_whole_not_diffed() -> None:
    big = "line\n" * (TEXT_DIFF_CAP // 5 + 10)
    diff = diff_text(big, big + "more\n")
    assert diff.whole and diff.changed


def test_json_in_strings_is_pretty_printed_before_diffing() -> None:
    item = classify_item(
        0, {"type": "function_call", "name": "exec", "call_id": "c", "arguments": '{"cmd":"ls"}'}
    )
    assert item_text(item) == 'exec\n{\n  "cmd": "ls"\n}'
    assert pretty("not json {") == "not json {"
    assert json.loads(pretty("[1, 2]")) == [1, 2]
    output = classify_item(0, {"type": "function_call_output", "call_id": "c", "output": '{"ok": true}'})
    assert item_text(output) == '{\n  "ok": true\n}'

"""Filter expressions and search over a recording's turns."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ctxscope.inspector.analysis import Analysis
from ctxscope.inspector.analysis.query import filter_turns, search
from ctxscope.proxy.errors import ConfigError


def test_filters_by_change_kind_world_change_and_tool(analysed: Callable[[str], Analysis]) -> None:
    compaction = analysed("compaction")
    assert filter_turns(compaction, "kind:compaction") == [5]
    # The turns whose answers called the tool (the next requests only carry the calls as history).
    assert filter_turns(compaction, "tool:exec_command") == [1, 2]
    assert [c.name for c in compaction.turns[0].answer.tool_calls] == ["exec_command"]
    world = analysed("world")
    assert filter_turns(world, "changed:cwd") == [2]
    assert filter_turns(world, "changed:goal") == [3]
    assert filter_turns(world, "changed:cwd model:5.1") == [2]
    assert filter_turns(world, "fragment:selected_skill") == [2]


def test_an_unknown_filter_key_is_a_one_line_error(analysed: Callable[[str], Analysis]) -> None:
    with pytest.raises(ConfigError, match="unknown filter 'colour'"):
        filter_turns(analysed("world"), "colour:red")


def test_search_finds_each_item_where_it_first_appears(analysed: Callable[[str], Analysis]) -> None:
    analysis = analysed("compaction")
    hits = search(analysis, "FAILED tests")
    assert [(h.turn, h.position) for h in hits] == [(2, 4)]
    assert search(analysis, "coding agent")[0].position is None  # the instructions
    assert search(analysis, "") == []
    summary = search(analysis, "pytest showed")
    assert [h.turn for h in summary] == [5]

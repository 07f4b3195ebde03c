"""The analysis works from each input's base plus what was added (issue 36), and what it carries
along a thread equals what a reading of the whole input gives, turn by turn."""

from __future__ import annotations

from pathlib import Path

from benchmarks.bench_analysis import build, write
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.items import ItemList, fragment_parts
from ctxscope.inspector.analysis.mode_events import call_names
from tests.inspector.test_growth_golden import _branching


def test_each_turn_continues_the_items_of_the_input_it_extends(tmp_path: Path) -> None:
    path = tmp_path / "growing.jsonl"
    write(build(150), path)  # an environment change at turn 101
    turns = analyse_recording(path).turns
    for before, now in zip(turns, turns[1:], strict=False):
        items = now.turn.items
        assert isinstance(items, ItemList) and items.base is before.turn.items
        assert now.change.kind == "append" and now.change.kept == len(before.turn.items)
    names = None
    for result in turns:
        items = result.turn.items
        assert fragment_parts(items) == [(i.position, p) for i in items for p in i.fragments]
        names = call_names(result.change.added, names) if names is not None else call_names(items)
        assert dict(names) == dict(call_names(list(items)))
    assert any(p.kind == "environment_context" for _, p in fragment_parts(turns[-1].turn.items)[2:])


def test_branches_fall_back_to_comparing(tmp_path: Path) -> None:
    path = tmp_path / "branching.jsonl"
    write(_branching(60), path)
    turns = analyse_recording(path).turns
    kinds = [t.change.kind for t in turns]
    assert "rewrite" in kinds and kinds.count("append") > 50
    for result in turns:
        items = result.turn.items
        assert fragment_parts(items) == [(i.position, p) for i in items for p in i.fragments]


_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_the_analysis_of_shared_inputs_equals_the_analysis_of_real_lists(tmp_path: Path) -> None:
    """What `diff`, `context`, `cost`, `compare` and the index read (`shared_inputs`: each input on its
    base's storage) is analysed exactly as `read_recording`'s real lists are: whole analyses equal, on
    every recording fixture (real Codex captures among them) and on a growing and a branching session;
    and a growing thread's items and inputs are each one backing list."""
    write(build(80), tmp_path / "growing.jsonl")
    write(_branching(40), tmp_path / "branching.jsonl")
    paths = sorted([*(_FIXTURES / "inspector").rglob("*.jsonl"), *(_FIXTURES / "codex").rglob("*.jsonl")])
    paths += [tmp_path / "growing.jsonl", tmp_path / "branching.jsonl"]
    assert len(paths) > 20 and any(p.name == "codex_ws.jsonl" for p in paths)
    for path in paths:
        shared, plain = analyse_recording(path, shared_inputs=True), analyse_recording(path)
        assert shared == plain, path.name
    growing = analyse_recording(tmp_path / "growing.jsonl", shared_inputs=True).turns
    first_items, first_input = growing[0].turn.items, growing[0].turn.raw_input
    for result in growing[1:]:
        assert isinstance(result.turn.items, ItemList) and result.turn.items.shares_with(first_items)
        assert result.turn.raw_input.shares_with(first_input)  # type: ignore[attr-defined]

"""Aligning two recordings' turns by a longest common subsequence over fingerprints."""

from __future__ import annotations

from pathlib import Path

from ctxscope.inspector.analysis import analyse_exchanges, analyse_recording
from ctxscope.inspector.analysis.alignment import AlignedPair, align_turns, lcs_align, pair_gaps
from ctxscope.inspector.analysis.compare import compare_analyses
from ctxscope.inspector.reports import compare_report
from tests.inspector.exchange_support import Script, body, completed, initial_context, message


def session(prompts: list[str], *, cwd: str = "/repo") -> Script:
    """One growing session: a turn per prompt, each answered by the assistant."""
    script = Script()
    items = list(initial_context(cwd))
    for n, prompt in enumerate(prompts):
        items.append(message("user", prompt))
        script.request(body(list(items)), response=completed(f"r{n}"), headers={"session-id": f"s-{cwd}"})
        items.append(message("assistant", f"done {n}"))
    return script


def test_lcs_leaves_one_gap_for_one_insertion() -> None:
    pairs = lcs_align(["a", "b", "c", "d"], ["a", "b", "x", "c", "d"])
    assert pairs == [
        AlignedPair(0, 0),
        AlignedPair(1, 1),
        AlignedPair(None, 2),
        AlignedPair(2, 3),
        AlignedPair(3, 4),
    ]
    assert lcs_align([], ["a"]) == [AlignedPair(None, 0)]
    assert lcs_align(["a", "a"], ["a", "a"]) == [AlignedPair(0, 0), AlignedPair(1, 1)]


def test_lcs_in_the_middle_of_differing_ends() -> None:
    pairs = lcs_align(["p", "x", "y", "q"], ["r", "x", "z", "y", "s"])
    matched = [(p.a, p.b) for p in pairs if p.a is not None and p.b is not None]
    assert matched == [(1, 1), (2, 3)]
    assert sorted(p.a for p in pairs if p.a is not None) == [0, 1, 2, 3]
    assert sorted(p.b for p in pairs if p.b is not None) == [0, 1, 2, 3, 4]


def test_differing_stretches_are_paired_by_position() -> None:
    pairs = pair_gaps(lcs_align(["a", "x", "c"], ["a", "y", "z", "c"]))
    assert pairs == [
        AlignedPair(0, 0),
        AlignedPair(1, 1, matched=False),
        AlignedPair(None, 2),
        AlignedPair(2, 3),
    ]


def test_an_inserted_turn_is_exactly_one_gap_and_compare_uses_the_alignment(tmp_path: Path) -> None:
    a = session(["one", "two", "three", "four"])
    b = session(["one", "two", "an extra question", "three", "four"], cwd="/work/other")
    analysis_a = analyse_recording(a.write(tmp_path / "a.jsonl"))
    analysis_b = analyse_recording(b.write(tmp_path / "b.jsonl"))
    pairs = align_turns(analysis_a, analysis_b)
    assert [(p.a, p.b) for p in pairs] == [(0, 0), (1, 1), (None, 2), (2, 3), (3, 4)]
    doc = compare_report(compare_analyses(analysis_a, analysis_b))
    rows = [(t.a_turn, t.b_turn) for t in doc.turns]
    assert rows == [(1, 1), (2, 2), (None, 3), (3, 4), (4, 5)]


def test_the_same_recording_aligns_with_itself() -> None:
    analysis = analyse_exchanges(session(["one", "two"]).exchanges)
    assert align_turns(analysis, analysis) == [AlignedPair(0, 0), AlignedPair(1, 1)]

"""What a turn reads of its whole input is carried along the thread, not rebuilt every turn.

The tool-call names `mode_events` reads and the in-band tool and parameter items the effective tools
and parameters are folded from: scanning the whole input on every turn made the analysis O(n²) in the
turns; an appending turn now adds only its own items to the previous turn's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import ctxscope.inspector.analysis.analyse as analyse
from ctxscope.harness.modes.plan.texts import PLAN_SUBMITTED_SIBLING
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.diffs import in_band_items
from ctxscope.inspector.analysis.items import classify_item
from ctxscope.inspector.analysis.mode_events import CallNames, call_names
from tests.inspector.exchange_support import Script, body, call, completed, initial_context, message
from tests.inspector.one_account import assert_one_account


def test_continued_names_equal_the_names_of_the_whole_input() -> None:
    raw = [message("user", "go"), *call("c1", "ls"), *call("c2", "pwd"), *call("c1", "again")]
    items = [classify_item(n, item) for n, item in enumerate(raw)]
    head = call_names(items[:3])
    whole = call_names(items[3:], head)
    assert whole == call_names(items) == {"c1": "exec_command", "c2": "exec_command"}
    assert head == {"c1": "exec_command"}  # the carried map is not changed
    assert call_names(items[2:3], head) is head  # nothing new: the same map


def _session(path: Path, turns: int) -> Path:
    """One appending thread: a call per turn; the last turn's output answers turn 1's call."""
    script = Script()
    items: list[dict[str, Any]] = [*initial_context(), message("user", "start")]
    for n in range(turns):
        items += call(f"call_{n}", f"step {n}") if n else [call("call_0", "x")[0]]
        items.append(message("user", f"turn {n}"))
        script.request(body(list(items)), response=completed(f"resp_{n}"))
    items.append({"type": "function_call_output", "call_id": "call_0", "output": PLAN_SUBMITTED_SIBLING})
    script.request(body(items), response=completed("resp_last"))
    return script.write(path)


def test_names_are_read_once_per_item_along_a_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []

    def counting(items: Any, carried: CallNames | None = None) -> CallNames:
        items = list(items)
        read.append(len(items))
        return call_names(items, carried)

    monkeypatch.setattr(analyse, "call_names", counting)
    path = _session(tmp_path / "long.jsonl", 60)
    analysis = analyse_recording(path)
    inputs = [len(t.turn.items) for t in analysis.turns]
    # linear: each item is read when its turn adds it (a rebuild per turn read sum(inputs), ~50×)
    assert sum(read) == inputs[-1] < sum(inputs) / 20
    # the output on the last turn still names the call made 60 turns before it
    assert [e.sentence for e in analysis.turns[-1].mode_events] == [
        "tool exec_command not run: a plan was submitted"
    ]
    assert_one_account(path)


def test_in_band_items_are_read_once_per_item_along_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[int] = []

    def counting(items: Any) -> list[Any]:
        items = list(items)
        read.append(len(items))
        return in_band_items(items)

    monkeypatch.setattr(analyse, "in_band_items", counting)
    grep = {"type": "function", "name": "grep_files", "parameters": {"type": "object"}}
    script = Script()
    items: list[dict[str, Any]] = [*initial_context(), message("user", "start")]
    for n in range(40):
        if n == 1:
            items.append({"type": "additional_tools", "role": "developer", "tools": [grep]})
        if n == 39:
            items.append({"type": "configuration_update", "reasoning": {"effort": "high"}})
        items += [message("assistant", f"done {n}"), message("user", f"turn {n}")]
        script.request(body(list(items)), response=completed(f"resp_{n}"))
    path = script.write(tmp_path / "in-band.jsonl")
    analysis = analyse_recording(path)
    assert sum(read) == len(analysis.turns[-1].turn.items)  # each item read once
    assert [n for n, t in enumerate(analysis.turns) if t.tools.added] == [1]
    assert analysis.turns[1].tools.added == ["grep_files"]
    assert [n for n, t in enumerate(analysis.turns) if t.params] == [39]
    assert analysis.turns[39].params == {"reasoning": ({"effort": "medium"}, {"effort": "high"})}
    assert_one_account(path)

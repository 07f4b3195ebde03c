"""A turn-metadata key Codex sends only sometimes (`workspaces`) is not a structural difference when one
side lacks it; any other key one side lacks still is. The requests are the harness's own (the demo)."""

from __future__ import annotations

import copy
import json

import pytest

from ctxscope.demo import run_demo
from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.analyse import TurnAnalysis
from ctxscope.inspector.analysis.structure import structural_differences


@pytest.fixture(scope="module")
def turn(tmp_path_factory: pytest.TempPathFactory) -> TurnAnalysis:
    root = tmp_path_factory.mktemp("demo")
    return analyse_recording(run_demo(root / "work", root / "demo.jsonl").recording).turns[1]


def _without(turn: TurnAnalysis, key: str) -> TurnAnalysis:
    other = copy.deepcopy(turn)
    meta = other.turn.body["client_metadata"]
    turn_meta = json.loads(meta["x-codex-turn-metadata"])
    del turn_meta[key]
    meta["x-codex-turn-metadata"] = json.dumps(turn_meta)
    return other


def test_workspaces_on_one_side_only_is_not_a_difference(turn: TurnAnalysis) -> None:
    turn_meta = json.loads(turn.turn.body["client_metadata"]["x-codex-turn-metadata"])
    assert "workspaces" in turn_meta and "sandbox" in turn_meta  # the demo repo is a git checkout
    assert structural_differences(turn, _without(turn, "workspaces")) == []
    assert structural_differences(_without(turn, "workspaces"), turn) == []
    assert structural_differences(turn, _without(turn, "sandbox")) == [
        "metadata keys: only a ['sandbox'], only b []"
    ]

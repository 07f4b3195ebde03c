"""`diff_requests`: a recorded and a live request body compared as context, after the replay's
normalisation. Bodies come from a real recording of the harness (the demo session)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ctxscope.demo import run_demo
from ctxscope.inspector.analysis.request_diff import diff_requests
from ctxscope.inspector.reports.context_diff import context_diff_lines
from ctxscope.proxy.store import read_recording


@pytest.fixture(scope="module")
def bodies(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    root = tmp_path_factory.mktemp("demo")
    result = run_demo(root / "work", root / "demo.jsonl")
    return [r.request_body for r in read_recording(result.recording).model_requests()]


def test_the_same_request_with_other_ids_and_dates_is_the_same(bodies: list[dict[str, Any]]) -> None:
    live = copy.deepcopy(bodies[1])
    for item in live["input"]:
        if isinstance(item.get("id"), str):
            item["id"] = item["id"][:4] + "zz9"
    live["prompt_cache_key"] = "8f0c7a43-0000-4000-8000-000000000000"
    assert diff_requests(bodies[1], live).same


def test_an_edited_base_prompt_is_named_with_its_changed_line(bodies: list[dict[str, Any]]) -> None:
    live = copy.deepcopy(bodies[0])
    text = live["input"][0]["content"][0]["text"]
    live["input"][0]["content"][0]["text"] = text.replace("\n", "\nBe terse.\n", 1)
    diff = diff_requests(bodies[0], live)
    [changed] = diff.items
    assert changed.kind == "instructions" and changed.position == 0 and changed.change.op == "changed"
    lines = context_diff_lines(diff)
    assert lines[0] == "input[0] developer[<instructions>] (the base prompt): changed"
    assert "  + Be terse." in lines
    assert sum(line.startswith("  +") for line in lines) == 1, "only the added line is marked"


def test_items_tools_and_parameters_that_differ(bodies: list[dict[str, Any]]) -> None:
    recorded, live = bodies[1], copy.deepcopy(bodies[1])
    hello = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    live["input"].append(hello)
    live["tools"] = [t for t in live["tools"] if t.get("name") != "view_image"]
    live["reasoning"] = {**live.get("reasoning", {}), "effort": "high"}
    diff = diff_requests(recorded, live)
    assert [(c.change.op, c.position) for c in diff.items] == [("added", len(recorded["input"]))]
    assert diff.tools is not None and diff.tools.removed == ["view_image"]
    assert "reasoning" in diff.params
    lines = context_diff_lines(diff)
    assert lines[0] == f"input[{len(recorded['input'])}] user: \"hi\": added"
    assert lines[1] == "  + hi"
    assert "tools[]: -view_image" in lines

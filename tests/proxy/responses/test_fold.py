"""The Responses fold, on streams built like the Codex wire shape."""

from __future__ import annotations

import copy
import json
from typing import Any

from ctxscope.proxy.responses import accumulate, fold_events, fold_sse_bytes
from ctxscope.proxy.testing import (
    custom_tool_call,
    encode_stream,
    function_call,
    reasoning,
    response_stream,
    text_message,
    usage,
)


def _without_done(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep only what must be rebuilt from deltas: no item.done, no *.done texts, no terminal output."""
    kept = []
    for e in events:
        if e["type"].endswith(".done"):
            continue
        if e["type"] == "response.completed":
            e = {**e, "response": {**e["response"], "output": []}}
        kept.append(e)
    return kept


def test_text_function_custom_reasoning_fold_to_the_completed_response() -> None:
    events = response_stream(
        reasoning("think about it", chunks=4),
        text_message("héllo wörld", chunks=5),
        function_call("exec_command", {"cmd": "ls -la"}, call_id="call_1", chunks=3),
        custom_tool_call("apply_patch", "*** Begin Patch\n*** End Patch\n", call_id="call_2", chunks=4),
        model="gpt-x",
        usage=usage(100, 20, cached_tokens=64),
    )
    snap = fold_events(events)
    assert snap is not None
    final = events[-1]["response"]
    assert snap["status"] == "completed"
    assert snap["model"] == "gpt-x"
    assert snap["usage"]["input_tokens_details"]["cached_tokens"] == 64
    assert snap["output"] == final["output"]
    # The same items must come out of the deltas alone.
    rebuilt = fold_events(_without_done(events))
    assert rebuilt is not None
    assert [i["type"] for i in rebuilt["output"]] == [
        "reasoning",
        "message",
        "function_call",
        "custom_tool_call",
    ]
    assert rebuilt["output"][0]["summary"][0]["text"] == "think about it"
    assert rebuilt["output"][1]["content"][0]["text"] == "héllo wörld"
    assert json.loads(rebuilt["output"][2]["arguments"]) == {"cmd": "ls -la"}
    assert rebuilt["output"][3]["input"] == "*** Begin Patch\n*** End Patch\n"
    assert rebuilt["usage"]["total_tokens"] == 120


def test_failed_incomplete_and_error_events() -> None:
    failed = fold_events(response_stream(text_message("partial"), failed=("server_is_overloaded", "busy")))
    assert failed is not None and failed["status"] == "failed"
    assert failed["error"] == {"code": "server_is_overloaded", "message": "busy"}
    assert failed["output"][0]["content"][0]["text"] == "partial"
    incomplete = fold_events(response_stream(text_message("x"), incomplete="max_output_tokens"))
    assert incomplete is not None and incomplete["status"] == "incomplete"
    err = accumulate(
        None, {"type": "error", "code": "rate_limit_exceeded", "message": "slow", "sequence_number": 3}
    )
    assert err["status"] == "failed"
    assert err["error"] == {"code": "rate_limit_exceeded", "message": "slow"}


def test_accumulate_never_mutates_its_inputs_and_ignores_unknown_events() -> None:
    events = response_stream(text_message("abc", chunks=3))
    pristine = copy.deepcopy(events)
    snaps: list[dict[str, Any]] = []
    snap: dict[str, Any] | None = None
    for e in events:
        snap = accumulate(snap, e)
        snaps.append(copy.deepcopy(snap))
    assert events == pristine
    # Every intermediate snapshot is still what it was when returned.
    snap = None
    for e, expected in zip(events, snaps, strict=True):
        snap = accumulate(snap, e)
        assert snap == expected
    assert accumulate(snap, {"type": "response.something_new", "x": 1}) is snap
    assert accumulate(None, {"no_type": True})["output"] == []
    texts = [s["output"][0]["content"][0]["text"] for s in snaps if s["output"] and s["output"][0]["content"]]
    assert texts[:4] == ["", "a", "ab", "abc"]


def test_delta_for_unknown_item_is_ignored_not_crashing() -> None:
    snap = accumulate(None, {"type": "response.output_text.delta", "item_id": "nope", "delta": "x"})
    assert snap["output"] == []


def test_fold_sse_bytes_skips_non_json_data() -> None:
    data = encode_stream(response_stream(text_message("ok"))) + b"data: [DONE]\n\n"
    snap = fold_sse_bytes(data)
    assert snap is not None and snap["status"] == "completed"
    assert snap["output"][0]["content"][0]["text"] == "ok"
    assert fold_sse_bytes(b"") is None

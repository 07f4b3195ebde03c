"""Event builders: deterministic ids from an injected factory, numbering, terminal events."""

from __future__ import annotations

from typing import Any

from ctxscope.proxy.responses import (
    custom_tool_call,
    fold_events,
    function_call,
    reasoning,
    response_stream,
    sequential_ids,
    text_message,
    usage,
)


def _stream(**kwargs: Any) -> list[dict[str, Any]]:
    ids = sequential_ids(width=3)
    return response_stream(
        reasoning(["a", "b"], ids=ids),
        text_message("hi", ids=ids),
        function_call("f", {"x": 1}, ids=ids),
        custom_tool_call("apply_patch", "*** Begin Patch\n*** End Patch", ids=ids),
        ids=ids,
        created_at=7,
        **kwargs,
    )


def test_an_injected_id_factory_makes_streams_repeatable() -> None:
    first, second = _stream(), _stream()
    assert first == second
    items = [e["item"] for e in first if e["type"] == "response.output_item.done"]
    assert [i["id"] for i in items] == ["rs_001", "msg_002", "fc_003", "ctc_005"]
    assert [i.get("call_id") for i in items] == [None, None, "call_004", "call_006"]
    assert first[0]["response"]["id"] == "resp_007"


def test_events_are_numbered_and_indexed_and_fold_to_the_final_response() -> None:
    events = _stream(usage=usage(3, 4))
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert all("output_index" in e for e in events[2:-1])
    final = events[-1]
    assert final["type"] == "response.completed"
    folded = fold_events(events)
    assert folded is not None and folded["output"] == final["response"]["output"]
    assert folded["usage"]["total_tokens"] == 7


def test_terminal_variants() -> None:
    assert _stream(failed=("server_error", "boom"))[-1]["response"]["error"] == {
        "code": "server_error",
        "message": "boom",
    }
    incomplete = _stream(incomplete="max_output_tokens")[-1]
    assert incomplete["type"] == "response.incomplete"
    cut = _stream(cut=True)
    assert cut[-1]["type"] == "response.output_item.done"
    counted = _stream(usage=lambda items: usage(len(items), 0))[-1]
    assert counted["response"]["usage"]["input_tokens"] == 4

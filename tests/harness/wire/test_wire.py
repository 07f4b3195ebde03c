"""Wire types and the typed stream: discriminated parsing, unknown data kept, fold over real SSE bytes."""

from __future__ import annotations

from ctxscope.harness.wire import (
    CustomToolCall,
    FunctionCallOutput,
    InputText,
    MessageItem,
    ResponseStream,
    UnknownContent,
    UnknownEvent,
    UnknownItem,
    is_tool_call,
    parse_event,
    parse_item,
    to_wire,
)
from ctxscope.proxy.testing import (
    custom_tool_call,
    encode_stream,
    function_call,
    reasoning,
    response_stream,
    text_message,
)


def test_items_are_discriminated_on_type() -> None:
    assert isinstance(
        parse_item({"type": "custom_tool_call", "name": "apply_patch", "input": "x", "call_id": "c"}),
        CustomToolCall,
    )
    assert isinstance(
        parse_item({"type": "function_call_output", "call_id": "c", "output": "ok"}), FunctionCallOutput
    )
    unknown = parse_item({"type": "web_search_call", "id": "ws_1", "action": {"query": "q"}})
    assert isinstance(unknown, UnknownItem)
    assert to_wire(unknown) == {"type": "web_search_call", "id": "ws_1", "action": {"query": "q"}}


def test_round_trip_keeps_unknown_fields_and_explicit_nulls() -> None:
    raw = {
        "type": "message",
        "role": "assistant",
        "phase": None,
        "future_field": {"x": 1},
        "content": [
            {"type": "output_text", "text": "hi", "annotations": []},
            {"type": "refusal", "refusal": "no"},
        ],
    }
    item = parse_item(raw)
    assert isinstance(item, MessageItem) and isinstance(item.content[1], UnknownContent)
    assert to_wire(item) == raw


def test_constructed_items_serialise_with_type() -> None:
    item = MessageItem(role="user", content=[InputText(text="hello")])
    assert to_wire(item) == {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "hello"}],
    }
    assert not is_tool_call(item)


def test_events_parse_typed_and_unknown() -> None:
    event = parse_event({"type": "response.output_text.delta", "delta": "he", "item_id": "m", "x": 1})
    assert event.delta == "he"
    other = parse_event({"type": "response.something_new", "payload": 3})
    assert isinstance(other, UnknownEvent) and other.model_extra == {"payload": 3}


def test_stream_folds_bytes_split_anywhere() -> None:
    data = encode_stream(
        response_stream(
            reasoning("thinking"),
            text_message("héllo wörld"),
            function_call("exec_command", {"cmd": "ls"}),
            custom_tool_call("apply_patch", "*** Begin Patch\n*** End Patch"),
        )
    )
    stream = ResponseStream()
    events = []
    for i in range(0, len(data), 5):  # 5-byte chunks split lines and multi-byte characters
        events += stream.feed(data[i : i + 5])
    events += stream.finish()
    assert stream.completed
    items = stream.output_items()
    assert [i.type for i in items] == ["reasoning", "message", "function_call", "custom_tool_call"]
    assert items[1].text() == "héllo wörld"
    assert items[0].encrypted_content == "enc-opaque"
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == "héllo wörld"


def test_stream_without_terminal_event_is_not_completed() -> None:
    events = response_stream(text_message("x"))[:-1]
    stream = ResponseStream()
    stream.feed(encode_stream(events))
    stream.finish()
    assert stream.terminal is None and not stream.completed


def test_failed_stream_reports_terminal() -> None:
    stream = ResponseStream()
    stream.feed(encode_stream(response_stream(failed=("context_length_exceeded", "too long"))))
    assert stream.terminal == "response.failed"
    assert stream.response.error == {"code": "context_length_exceeded", "message": "too long"}


def test_every_event_of_a_builder_stream_is_typed() -> None:
    data = encode_stream(
        response_stream(
            reasoning("r"), text_message("t"), function_call("f", {}), custom_tool_call("apply_patch", "p")
        )
    )
    stream = ResponseStream()
    events = stream.feed(data) + stream.finish()
    assert [e.type for e in events if isinstance(e, UnknownEvent)] == []

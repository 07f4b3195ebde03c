"""Responses API wire types (pydantic, discriminated on `type`) and the typed stream wrapper.

types     one model per item / content part / SSE event; `parse_item`, `parse_event`, `to_wire`
stream    `ResponseStream`: bytes → typed events, folded with `ctxscope.proxy.responses.accumulate`
"""

from __future__ import annotations

from ctxscope.harness.wire.stream import ResponseStream
from ctxscope.harness.wire.types import (
    ContentPart,
    CustomToolCall,
    CustomToolCallOutput,
    Event,
    FunctionCall,
    FunctionCallOutput,
    InputImage,
    InputText,
    Item,
    MessageItem,
    OutputText,
    ReasoningItem,
    ResponseObject,
    SummaryText,
    UnknownContent,
    UnknownEvent,
    UnknownItem,
    Usage,
    is_tool_call,
    parse_event,
    parse_item,
    parse_items,
    to_wire,
)

__all__ = [
    "ContentPart",
    "CustomToolCall",
    "CustomToolCallOutput",
    "Event",
    "FunctionCall",
    "FunctionCallOutput",
    "InputImage",
    "InputText",
    "Item",
    "MessageItem",
    "OutputText",
    "ReasoningItem",
    "ResponseObject",
    "ResponseStream",
    "SummaryText",
    "UnknownContent",
    "UnknownEvent",
    "UnknownItem",
    "Usage",
    "is_tool_call",
    "parse_event",
    "parse_item",
    "parse_items",
    "to_wire",
]

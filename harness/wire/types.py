"""Responses API wire types: one pydantic model per input/output item and per SSE event type.

Every model keeps unknown fields (`extra="allow"`), so an item read from a recording or a live
stream goes back on the wire unchanged. Parsing is discriminated on `type`; a `type` we do not
model becomes `UnknownItem` / `UnknownEvent` / `UnknownContent` rather than an error, because
backends add item kinds faster than we do.

`to_wire(model)` is the one way to turn a model back into JSON: fields that were never set are
left out (so a server's explicit `null` survives and our defaults do not invent keys).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Tag, TypeAdapter

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


class WireModel(BaseModel):
    """Base: unknown fields kept; `type` always counts as set so `to_wire` never drops it."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def model_post_init(self, context: Any, /) -> None:
        if "type" in type(self).model_fields:
            self.__pydantic_fields_set__.add("type")


def to_wire(model: BaseModel) -> dict[str, Any]:
    """JSON-ready dict of a wire model: set fields and extras only, in declaration order."""
    return model.model_dump(mode="json", exclude_unset=True)


# ---- content parts ---------------------------------------------------------------------------


class InputText(WireModel):
    type: Literal["input_text"] = "input_text"
    text: str


class OutputText(WireModel):
    type: Literal["output_text"] = "output_text"
    text: str


class InputImage(WireModel):
    type: Literal["input_image"] = "input_image"
    image_url: str | None = None


class UnknownContent(WireModel):
    type: str


_CONTENT_TYPES = {"input_text": InputText, "output_text": OutputText, "input_image": InputImage}


def _content_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in _CONTENT_TYPES else "unknown"


ContentPart = Annotated[
    Annotated[InputText, Tag("input_text")]
    | Annotated[OutputText, Tag("output_text")]
    | Annotated[InputImage, Tag("input_image")]
    | Annotated[UnknownContent, Tag("unknown")],
    Discriminator(_content_tag),
]


# ---- items -----------------------------------------------------------------------------------


class MessageItem(WireModel):
    """A developer, user or assistant message."""

    type: Literal["message"] = "message"
    role: str
    """`developer`, `user`, `assistant` (or legacy `system`)."""
    content: list[ContentPart]
    id: str | None = None

    def text(self) -> str:
        """All text parts joined (images skipped)."""
        return "".join(getattr(p, "text", "") or "" for p in self.content)


class SummaryText(WireModel):
    type: Literal["summary_text"] = "summary_text"
    text: str


class ReasoningItem(WireModel):
    """Reasoning; sent back unchanged on the next request (with its `encrypted_content`)."""

    type: Literal["reasoning"] = "reasoning"
    summary: list[SummaryText] = []
    encrypted_content: str | None = None
    id: str | None = None


class FunctionCall(WireModel):
    type: Literal["function_call"] = "function_call"
    name: str
    arguments: str
    """JSON text, exactly as the model produced it (may be invalid JSON)."""
    call_id: str
    namespace: str | None = None
    id: str | None = None


class FunctionCallOutput(WireModel):
    type: Literal["function_call_output"] = "function_call_output"
    call_id: str
    output: Any
    """A string, or a list of content parts."""


class CustomToolCall(WireModel):
    type: Literal["custom_tool_call"] = "custom_tool_call"
    name: str
    input: str
    call_id: str
    id: str | None = None


class CustomToolCallOutput(WireModel):
    type: Literal["custom_tool_call_output"] = "custom_tool_call_output"
    call_id: str
    output: Any


class UnknownItem(WireModel):
    """Any item type we do not model (web_search_call, compaction, ...); kept verbatim."""

    type: str


_ITEM_TYPES: dict[str, type[WireModel]] = {
    "message": MessageItem,
    "reasoning": ReasoningItem,
    "function_call": FunctionCall,
    "function_call_output": FunctionCallOutput,
    "custom_tool_call": CustomToolCall,
    "custom_tool_call_output": CustomToolCallOutput,
}


def _item_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in _ITEM_TYPES else "unknown"


Item = Annotated[
    Annotated[MessageItem, Tag("message")]
    | Annotated[ReasoningItem, Tag("reasoning")]
    | Annotated[FunctionCall, Tag("function_call")]
    | Annotated[FunctionCallOutput, Tag("function_call_output")]
    | Annotated[CustomToolCall, Tag("custom_tool_call")]
    | Annotated[CustomToolCallOutput, Tag("custom_tool_call_output")]
    | Annotated[UnknownItem, Tag("unknown")],
    Discriminator(_item_tag),
]

_ITEM_ADAPTER: TypeAdapter[Any] = TypeAdapter(Item)
_ITEMS_ADAPTER: TypeAdapter[Any] = TypeAdapter(list[Item])


def parse_item(data: dict[str, Any] | BaseModel) -> Any:
    """One item (dict or model) → its typed model."""
    if isinstance(data, BaseModel):
        data = to_wire(data)
    return _ITEM_ADAPTER.validate_python(data)


def parse_items(data: list[Any]) -> list[Any]:
    return [parse_item(d) for d in data]


def is_tool_call(item: Any) -> bool:
    """True for items that need exactly one output item in the next request."""
    return isinstance(item, FunctionCall | CustomToolCall)


# ---- the response object and SSE events ------------------------------------------------------


class Usage(WireModel):
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    input_tokens_details: dict[str, Any] | None = None
    output_tokens_details: dict[str, Any] | None = None

    @property
    def cached_tokens(self) -> int:
        return int((self.input_tokens_details or {}).get("cached_tokens") or 0)


class ResponseObject(WireModel):
    """The Responses object as folded from a stream (see `ctxscope.proxy.responses.accumulate`)."""

    id: str | None = None
    model: str | None = None
    status: str | None = None
    output: list[Item] = []
    usage: Usage | None = None
    error: dict[str, Any] | None = None


class _Event(WireModel):
    sequence_number: int | None = None


class ResponseCreated(_Event):
    type: Literal["response.created"] = "response.created"
    response: dict[str, Any]


class ResponseInProgress(_Event):
    type: Literal["response.in_progress"] = "response.in_progress"
    response: dict[str, Any] | None = None


class OutputItemAdded(_Event):
    type: Literal["response.output_item.added"] = "response.output_item.added"
    output_index: int | None = None
    item: Item


class OutputItemDone(_Event):
    type: Literal["response.output_item.done"] = "response.output_item.done"
    output_index: int | None = None
    item: Item


class OutputTextDelta(_Event):
    type: Literal["response.output_text.delta"] = "response.output_text.delta"
    delta: str
    item_id: str | None = None
    output_index: int | None = None


class FunctionCallArgumentsDelta(_Event):
    type: Literal["response.function_call_arguments.delta"] = "response.function_call_arguments.delta"
    delta: str
    item_id: str | None = None
    output_index: int | None = None


class CustomToolCallInputDelta(_Event):
    type: Literal["response.custom_tool_call_input.delta"] = "response.custom_tool_call_input.delta"
    delta: str
    item_id: str | None = None
    output_index: int | None = None


class ReasoningSummaryTextDelta(_Event):
    type: Literal["response.reasoning_summary_text.delta"] = "response.reasoning_summary_text.delta"
    delta: str
    item_id: str | None = None


class ReasoningSummaryTextDone(_Event):
    type: Literal["response.reasoning_summary_text.done"] = "response.reasoning_summary_text.done"
    text: str
    item_id: str | None = None


class ReasoningSummaryPartAdded(_Event):
    type: Literal["response.reasoning_summary_part.added"] = "response.reasoning_summary_part.added"
    item_id: str | None = None
    summary_index: int | None = None


class ReasoningSummaryPartDone(_Event):
    type: Literal["response.reasoning_summary_part.done"] = "response.reasoning_summary_part.done"
    item_id: str | None = None
    summary_index: int | None = None


class ReasoningTextDelta(_Event):
    """Raw reasoning text (open-weight / local models); OpenAI models send summaries instead."""

    type: Literal["response.reasoning_text.delta"] = "response.reasoning_text.delta"
    delta: str
    item_id: str | None = None


class OutputTextDone(_Event):
    type: Literal["response.output_text.done"] = "response.output_text.done"
    text: str
    item_id: str | None = None


class FunctionCallArgumentsDone(_Event):
    type: Literal["response.function_call_arguments.done"] = "response.function_call_arguments.done"
    arguments: str
    item_id: str | None = None


class CustomToolCallInputDone(_Event):
    type: Literal["response.custom_tool_call_input.done"] = "response.custom_tool_call_input.done"
    input: str
    item_id: str | None = None


class ContentPartAdded(_Event):
    type: Literal["response.content_part.added"] = "response.content_part.added"
    item_id: str | None = None
    content_index: int | None = None
    part: ContentPart | None = None


class ContentPartDone(_Event):
    type: Literal["response.content_part.done"] = "response.content_part.done"
    item_id: str | None = None
    content_index: int | None = None
    part: ContentPart | None = None


class ResponseCompleted(_Event):
    type: Literal["response.completed"] = "response.completed"
    response: ResponseObject


class ResponseFailed(_Event):
    type: Literal["response.failed"] = "response.failed"
    response: ResponseObject


class ResponseIncomplete(_Event):
    type: Literal["response.incomplete"] = "response.incomplete"
    response: ResponseObject


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    code: str | None = None
    message: str | None = None


class UnknownEvent(_Event):
    type: str


_EVENT_TYPES: dict[str, type[WireModel]] = {
    m.model_fields["type"].default: m
    for m in (
        ResponseCreated,
        ResponseInProgress,
        OutputItemAdded,
        OutputItemDone,
        OutputTextDelta,
        FunctionCallArgumentsDelta,
        CustomToolCallInputDelta,
        ReasoningSummaryTextDelta,
        ReasoningSummaryTextDone,
        ReasoningSummaryPartAdded,
        ReasoningSummaryPartDone,
        ReasoningTextDelta,
        OutputTextDone,
        FunctionCallArgumentsDone,
        CustomToolCallInputDone,
        ContentPartAdded,
        ContentPartDone,
        ResponseCompleted,
        ResponseFailed,
        ResponseIncomplete,
        ErrorEvent,
    )
}


def parse_event(data: dict[str, Any]) -> Any:
    """One parsed SSE `data` object → its typed event (`UnknownEvent` for types we do not model)."""
    model = _EVENT_TYPES.get(str(data.get("type")), UnknownEvent)
    return model.model_validate(data)


Event = (
    ResponseCreated
    | ResponseInProgress
    | OutputItemAdded
    | OutputItemDone
    | OutputTextDelta
    | FunctionCallArgumentsDelta
    | CustomToolCallInputDelta
    | ReasoningSummaryTextDelta
    | ReasoningSummaryTextDone
    | ReasoningSummaryPartAdded
    | ReasoningSummaryPartDone
    | ReasoningTextDelta
    | OutputTextDone
    | FunctionCallArgumentsDone
    | CustomToolCallInputDone
    | ContentPartAdded
    | ContentPartDone
    | ResponseCompleted
    | ResponseFailed
    | ResponseIncomplete
    | ErrorEvent
    | UnknownEvent
)

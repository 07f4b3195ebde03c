"""The terminal printers: what a person sees of the agent's events."""

from __future__ import annotations

import io
from typing import Any

from harness.output import InteractivePrinter


def _shown(events: list[dict[str, Any]]) -> str:
    out, err = io.StringIO(), io.StringIO()
    printer = InteractivePrinter(out, err)
    for event in events:
        printer(event)
    return out.getvalue()


def test_streamed_text_is_shown_once() -> None:
    events = [
        {"type": "turn_started", "turn_id": "t"},
        {"type": "text_delta", "delta": "hel"},
        {"type": "text_delta", "delta": "lo"},
        {"type": "assistant_message", "text": "hello"},
        {"type": "turn_completed", "turn_id": "t"},
    ]
    assert _shown(events) == "hello\n"


def test_message_without_deltas_is_still_shown() -> None:
    # Some Responses-compatible backends send the finished message with no output_text deltas.
    events = [
        {"type": "turn_started", "turn_id": "t"},
        {"type": "assistant_message", "text": "first"},
        {"type": "tool_call", "name": "list_dir", "arguments": "{}"},
        {"type": "text_delta", "delta": "sec"},
        {"type": "text_delta", "delta": "ond"},
        {"type": "assistant_message", "text": "second"},
        {"type": "turn_completed", "turn_id": "t"},
    ]
    assert _shown(events) == "first\nsecond\n"


def test_text_streamed_again_after_a_retry_is_not_shown_a_third_time() -> None:
    events = [
        {"type": "turn_started", "turn_id": "t"},
        {"type": "text_delta", "delta": "hal"},
        {"type": "notice", "message": "the connection dropped; retrying in 0.5s (1/4)"},
        {"type": "text_delta", "delta": "hello"},
        {"type": "assistant_message", "text": "hello"},
        {"type": "turn_completed", "turn_id": "t"},
    ]
    assert _shown(events) == "hal\nhello\n"

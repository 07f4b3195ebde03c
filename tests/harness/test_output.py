"""The terminal printers: what a person sees of the agent's events."""

from __future__ import annotations

import io
import json

from ctxscope.harness.events import (
    AgentEvent,
    AssistantMessage,
    ModelSwitch,
    Notice,
    SessionStarted,
    TextDelta,
    ToolCall,
    ToolOutput,
    TurnCompleted,
    TurnStarted,
)
from ctxscope.harness.output import InteractivePrinter, JsonPrinter, PrintModePrinter

DONE = TurnCompleted(turn_id="t", final_text="", steps=1, stopped="completed", usage=[])


def _shown(events: list[AgentEvent]) -> str:
    out, err = io.StringIO(), io.StringIO()
    printer = InteractivePrinter(out, err)
    for event in events:
        printer(event)
    return out.getvalue()


def test_streamed_text_is_shown_once() -> None:
    events: list[AgentEvent] = [
        TurnStarted(turn_id="t"),
        TextDelta(delta="hel"),
        TextDelta(delta="lo"),
        AssistantMessage(text="hello"),
        DONE,
    ]
    assert _shown(events) == "hello\n"


def test_message_without_deltas_is_still_shown() -> None:
    # Some Responses-compatible backends send the finished message with no output_text deltas.
    events: list[AgentEvent] = [
        TurnStarted(turn_id="t"),
        AssistantMessage(text="first"),
        ToolCall(name="list_dir", call_id="c", arguments="{}"),
        TextDelta(delta="sec"),
        TextDelta(delta="ond"),
        AssistantMessage(text="second"),
        DONE,
    ]
    assert _shown(events) == "first\nsecond\n"


def test_text_streamed_again_after_a_retry_is_not_shown_a_third_time() -> None:
    events: list[AgentEvent] = [
        TurnStarted(turn_id="t"),
        TextDelta(delta="hal"),
        Notice(message="the connection dropped; retrying in 0.5s (1/4)"),
        TextDelta(delta="hello"),
        AssistantMessage(text="hello"),
        DONE,
    ]
    assert _shown(events) == "hal\nhello\n"


def test_tool_activity_and_notices_go_to_stderr() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = InteractivePrinter(out, err)
    for event in (
        ToolCall(name="list_dir", call_id="c", arguments='{"path": "."}'),
        ToolOutput(call_id="c", output="a.txt"),
        ModelSwitch(from_="gpt-5", to="gpt-5-mini"),
    ):
        printer(event)
    assert out.getvalue() == ""
    assert err.getvalue() == '• list_dir {"path": "."}\n  ↳ a.txt\nmodel: gpt-5 → gpt-5-mini\n'
    quiet = io.StringIO()
    PrintModePrinter(quiet, verbose=False)(ToolCall(name="x", call_id="c", arguments=None))
    assert quiet.getvalue() == ""


def test_json_printer_writes_the_wire_keys_in_order() -> None:
    out = io.StringIO()
    printer = JsonPrinter(out)
    printer(SessionStarted(session_id="s", session_file="/f", model="m", provider="script", capture=None))
    printer(ModelSwitch(from_="a", to="b"))
    lines = out.getvalue().splitlines()
    assert lines[0] == (
        '{"type": "session_started", "session_id": "s", "session_file": "/f", "model": "m", '
        '"provider": "script", "capture": null}'
    )
    assert list(json.loads(lines[1])) == ["type", "from", "to"]

"""Script cassettes: parsing, clear errors for bad scripts, and the Codex-wire events they render."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope.proxy.errors import RecordingError
from ctxscope.proxy.replay.script import parse_script, read_script
from ctxscope.proxy.responses import fold_events

RECORDINGS = Path(__file__).resolve().parents[3] / "recordings"


def _events(entry: object, request: object = None, model: str = "gpt-test") -> list[dict]:
    script = parse_script({"format": "ctxscope-script", "model": model, "responses": [entry]})
    return script.responses[0].events(request, script.model, now=1000.0)


def test_text_response_has_the_codex_wire_shape() -> None:
    events = _events({"text": "Hello world", "chunks": 2})
    assert [e["type"] for e in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert all(e["output_index"] == 0 for e in events[2:-1])
    final = events[-1]["response"]
    assert final["id"] == "resp_0001" and final["status"] == "completed" and final["model"] == "gpt-test"
    assert final["output"] == [
        {
            "id": "msg_0001_0",
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Hello world", "annotations": [], "logprobs": []}],
        }
    ]
    assert set(final["usage"]) == {
        "input_tokens",
        "input_tokens_details",
        "output_tokens",
        "output_tokens_details",
        "total_tokens",
    }


def test_the_fold_rebuilds_every_item_kind() -> None:
    entry = {
        "output": [
            {"reasoning": ["first thought", "second"]},
            {"text": "Let me look."},
            {"function_call": {"name": "exec_command", "arguments": {"cmd": "ls"}, "call_id": "call_x"}},
            {"custom_tool_call": {"name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}},
        ],
        "usage": {"input_tokens": 100, "output_tokens": 7, "cached_tokens": 64, "reasoning_tokens": 3},
    }
    events = _events(entry)
    folded = fold_events(events)
    assert folded is not None
    assert folded["status"] == "completed"
    assert [item["type"] for item in folded["output"]] == [
        "reasoning",
        "message",
        "function_call",
        "custom_tool_call",
    ]
    assert [s["text"] for s in folded["output"][0]["summary"]] == ["first thought", "second"]
    assert folded["output"][1]["content"][0]["text"] == "Let me look."
    call = folded["output"][2]
    assert (call["name"], json.loads(call["arguments"]), call["call_id"]) == (
        "exec_command",
        {"cmd": "ls"},
        "call_x",
    )
    assert folded["output"][3]["input"] == "*** Begin Patch\n*** End Patch\n"
    assert folded["output"][3]["call_id"] == "call_0001_3"
    assert folded["usage"] == {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 64},
        "output_tokens": 7,
        "output_tokens_details": {"reasoning_tokens": 3},
        "total_tokens": 107,
    }
    # the streamed deltas and the final items agree
    assert folded["output"] == events[-1]["response"]["output"]


def test_default_usage_is_estimated_from_the_live_request() -> None:
    small = _events({"text": "hi"}, {"input": "x" * 40})[-1]["response"]["usage"]
    large = _events({"text": "hi"}, {"input": "x" * 4000})[-1]["response"]["usage"]
    assert large["input_tokens"] > small["input_tokens"] > 0
    assert small["total_tokens"] == small["input_tokens"] + small["output_tokens"]


def test_model_comes_from_the_entry_then_the_request_then_the_script() -> None:
    assert _events({"text": "a"}, {"model": "from-request"})[-1]["response"]["model"] == "from-request"
    assert _events({"text": "a", "model": "pinned"}, {"model": "r"})[-1]["response"]["model"] == "pinned"
    assert _events({"text": "a"})[-1]["response"]["model"] == "gpt-test"


def test_failure_incomplete_and_cut() -> None:
    failed = _events({"fail": {"code": "context_length_exceeded", "message": "too long"}})
    assert failed[-1]["type"] == "response.failed"
    assert failed[-1]["response"]["error"] == {"code": "context_length_exceeded", "message": "too long"}
    short = _events({"fail": "server_is_overloaded"})[-1]["response"]["error"]
    assert short == {"code": "server_is_overloaded", "message": "server is overloaded"}
    incomplete = _events({"text": "part", "incomplete": "max_output_tokens"})[-1]
    assert incomplete["type"] == "response.incomplete"
    assert incomplete["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    cut = _events({"text": "abc", "cut": True})
    assert cut[-1]["type"] == "response.output_item.done"


def test_bare_list_and_string_shorthands() -> None:
    script = parse_script(["plain text", {"text": "b"}])
    assert [r.items for r in script.responses] == [[{"text": "plain text"}], [{"text": "b"}]]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"format": "other"}, "not a script cassette"),
        (
            {"format": "ctxscope-script", "version": 99, "responses": [{"text": "a"}]},
            "newer than this ctxscope",
        ),
        ({"format": "ctxscope-script", "responses": []}, "must be a non-empty list"),
        ({"format": "ctxscope-script", "responses": [{"txt": "a"}]}, "responses[0]: unknown key 'txt'"),
        ({"format": "ctxscope-script", "responses": [{}]}, "needs at least one item"),
        (
            {"format": "ctxscope-script", "responses": [{"function_call": {"arguments": {}}}]},
            'needs at least a "name"',
        ),
        ({"format": "ctxscope-script", "responses": [{"text": "a", "output": []}]}, "not both"),
        ({"format": "ctxscope-script", "responses": [{"http_status": 9000}]}, "HTTP status"),
        (
            {"format": "ctxscope-script", "responses": [{"text": "a", "fail": "x", "http_status": 500}]},
            "one of",
        ),
        ({"format": "ctxscope-script", "responses": [{"text": 3}]}, '"text" must be a string'),
    ],
)
def test_malformed_scripts_get_one_line_errors(document: object, message: str) -> None:
    with pytest.raises(RecordingError) as err:
        parse_script(document, source="s.json")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_not_json_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"format": "ctxscope-script", ')
    with pytest.raises(RecordingError, match="is not valid JSON"):
        read_script(path)


@pytest.mark.parametrize("name", ["script-example.json", "script-failures.json"])
def test_shipped_examples_parse_and_render(name: str) -> None:
    script = read_script(RECORDINGS / name)
    for response in script.responses:
        if response.http_status is None:
            events = response.events({"input": []}, script.model)
            assert events[0]["type"] == "response.created"

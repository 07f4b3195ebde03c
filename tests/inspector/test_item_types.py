"""Every documented Responses output item type is recognised; anything else stays `unknown:<type>`."""

from __future__ import annotations

import pytest

from ctxscope.inspector.analysis import classify_item

# The output item types of the Responses API (openai-python 2.x `ResponseOutputItem` and `ResponseItem`).
DOCUMENTED = [
    "message",
    "file_search_call",
    "function_call",
    "function_call_output",
    "web_search_call",
    "computer_call",
    "computer_call_output",
    "reasoning",
    "program",
    "program_output",
    "tool_search_call",
    "tool_search_output",
    "additional_tools",
    "compaction",
    "image_generation_call",
    "code_interpreter_call",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "custom_tool_call",
    "custom_tool_call_output",
]


@pytest.mark.parametrize("item_type", DOCUMENTED)
def test_documented_item_types_are_recognised(item_type: str) -> None:
    item = classify_item(0, {"type": item_type, "id": "x_1", "call_id": "call_1"})
    assert item.kind != "unknown" and not item.label.startswith("unknown:"), item.label


def test_other_types_stay_unknown() -> None:
    item = classify_item(0, {"type": "hologram_call", "id": "h"})
    assert item.kind == "unknown" and item.label == "unknown:hologram_call"


def test_shell_and_apply_patch_calls_say_what_they_do() -> None:
    shell = classify_item(
        0, {"type": "shell_call", "call_id": "c", "action": {"commands": ["ls -la", "cat README.md"]}}
    )
    assert shell.label == 'shell_call "ls -la && cat README.md"'
    patch = classify_item(
        0,
        {
            "type": "apply_patch_call",
            "call_id": "c",
            "operation": {"type": "update_file", "path": "src/app.py", "diff": "@@\n-a\n+b\n"},
        },
    )
    assert patch.label == "apply_patch_call update_file src/app.py"
    output = classify_item(0, {"type": "shell_call_output", "call_id": "c", "output": "total 0"})
    assert output.label == 'shell_call_output: "total 0"'


def test_reasoning_with_only_reasoning_text_is_counted() -> None:
    item = classify_item(
        0,
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": "First list the files, then read the tests."}],
        },
    )
    assert item.kind == "reasoning" and item.text.startswith("First list the files")
    assert item.tokens > 0 and "First list" in item.label

"""Layout labels for every item type, root substitution, and the per-event items."""

from __future__ import annotations

from pathlib import Path

from ctxscope.harness.context import (
    classify_text,
    compaction_summary_item,
    layout_labels,
    message_item,
    model_switch_items,
    plan_mode_reminder_item,
    turn_aborted_item,
    user_shell_command_item,
)


def test_labels_for_item_types() -> None:
    items = [
        message_item("developer", ["You are a careful agent."]),
        {"type": "message", "role": "user", "content": "plain string content"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done. " * 30}]},
        {"type": "reasoning", "summary": [], "encrypted_content": "x"},
        {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch", "call_id": "c2"},
        {"type": "function_call", "namespace": "mcp", "name": "search", "arguments": "{}", "call_id": "c3"},
        {"type": "compaction_trigger"},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_image", "image_url": "data:"},
                {"type": "input_text", "text": "see image"},
            ],
        },
        {"type": "message", "role": "user", "content": []},
        "not a dict",
    ]
    labels = layout_labels(items)
    # A plain developer message at input[0] is the base prompt (Codex 0.169's placement) ...
    assert labels[0] == "developer[<instructions>]"
    # ... anywhere else it is plain developer text.
    assert layout_labels([items[1], items[0]])[1] == 'developer: "You are a careful agent."'
    assert labels[1:3] == [
        'user: "plain string content"',
        'assistant: "' + ("Done. " * 30).strip()[:59] + '…"',
    ]
    assert labels[3:] == [
        "reasoning",
        "function_call exec_command",
        "function_call_output",
        "custom_tool_call apply_patch",
        "function_call mcp.search",
        "compaction_trigger",
        'user[<input_image>, "see image"]',
        "user[]",
        "unknown str",
    ]


def test_root_substitution_only_replaces_whole_prefixes(tmp_path: Path) -> None:
    root = tmp_path / "r"
    items = [
        message_item("user", [f"<environment_context>\n  <cwd>{root}/pkg</cwd>\n</environment_context>"]),
        message_item("user", [f"<environment_context>\n  <cwd>{root}x</cwd>\n</environment_context>"]),
    ]
    assert layout_labels(items, root=root) == [
        "user[<environment_context:cwd=$ROOT/pkg>]",
        f"user[<environment_context:cwd={root}x>]",
    ]


def test_event_items_classify() -> None:
    (switch,) = model_switch_items("gpt-a", "gpt-b", "B's instructions")
    assert layout_labels([switch]) == ["developer[<model_switch:gpt-b>]"]
    aborted = turn_aborted_item("Interrupted by the user.")
    match = classify_text(aborted["content"][0]["text"], "user")
    assert match is not None and match.values == {"reason": "Interrupted by the user."}
    shell = user_shell_command_item("pytest -q", 1, 3.25, "1 failed")
    match = classify_text(shell["content"][0]["text"], "user")
    assert match is not None
    assert match.values == {"command": "pytest -q", "exit_code": 1, "duration_s": 3.25, "output": "1 failed"}


def test_plan_mode_and_compaction_items() -> None:
    items = [
        plan_mode_reminder_item("entered", "Plan before you act."),
        compaction_summary_item("Did A; next B."),
    ]
    assert layout_labels(items) == [
        "developer[<plan_mode_reminder:entered>]",
        "user[<compaction_summary>]",
    ]
    match = classify_text(items[1]["content"][0]["text"], "user")
    assert match is not None and match.values == {"summary": "Did A; next B."}

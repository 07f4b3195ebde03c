"""Item and part classification, and token attribution."""

from __future__ import annotations

from ctxscope.inspector.analysis import classify_item
from ctxscope.inspector.analysis.attribution import attribute, item_totals
from ctxscope.inspector.analysis.items import ItemClassifier
from ctxscope.inspector.analysis.tokens import count_text, get_tokenizer, predicted_cached
from tests.inspector.exchange_support import agents_md, environment, fragment, message


def test_fragments_are_recognised_with_the_harness_definitions() -> None:
    item = classify_item(0, message("user", agents_md("/repo", "Use pytest."), environment("/repo")))
    assert item.label == "user[<agents_md:/repo>, <environment_context:cwd=/repo>]"
    assert [p.kind for p in item.fragments] == ["agents_md", "environment_context"]
    assert item.fragments[1].values["cwd"] == "/repo"
    assert item.kind == "context" and not item.is_conversation


def test_single_fragment_message_takes_the_fragment_kind() -> None:
    item = classify_item(3, message("developer", fragment("collaboration_mode", mode="plan")))
    assert item.kind == "collaboration_mode" and item.position == 3
    assert item.label == "developer[<collaboration_mode:plan>]"


def test_plain_messages_and_tool_items() -> None:
    assert classify_item(0, message("user", "hello there")).label == 'user: "hello there"'
    assert classify_item(0, message("assistant", "<environment_context>")).kind == "assistant_message"
    call = classify_item(
        0,
        {
            "type": "function_call",
            "name": "exec_command",
            "namespace": "shell",
            "call_id": "c",
            "arguments": '{"cmd":"ls"}',
        },
    )
    assert call.kind == "function_call" and call.label.startswith("function_call shell.exec_command")
    out = classify_item(
        0,
        {"type": "function_call_output", "call_id": "c", "output": [{"type": "input_text", "text": "a.py"}]},
    )
    assert out.text == "a.py" and out.tokens == count_text("a.py")
    ctx = classify_item(0, {"type": "context_compaction", "encrypted_content": "x" * 10})
    assert ctx.kind == "compaction" and ctx.label == "context_compaction (10 chars encrypted)"
    extra = classify_item(
        0,
        {
            "type": "additional_tools",
            "role": "developer",
            "tools": [{"type": "function", "name": "exec_command"}],
        },
    )
    assert extra.label == "additional_tools[exec_command]"


def test_ids_do_not_make_items_different() -> None:
    classifier = ItemClassifier()
    a = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "c",
        "name": "x",
        "arguments": "{}",
        "status": "in_progress",
    }
    b = {**a, "id": "fc_2", "status": "completed"}
    first, second = classifier.classify([a, b])
    assert first.key == second.key
    assert second.position == 1


def test_attribution_sums_per_kind_and_predicts_cache() -> None:
    items = ItemClassifier().classify(
        [message("user", agents_md("/repo", "x " * 3000), environment("/repo")), message("user", "go")]
    )
    totals = item_totals(items)
    body = {"instructions": "Be brief.", "tools": [{"type": "function", "name": "t"}]}
    usage = {"input_tokens": totals.tokens + 50, "input_tokens_details": {"cached_tokens": 1024}}
    report = attribute(body, totals, usage)
    assert set(report.by_kind) == {
        "instructions",
        "tools",
        "agents_md",
        "environment_context",
        "user_message",
    }
    assert report.total == sum(report.by_kind.values())
    assert (
        report.usage["cached_tokens"] == 1024
        and report.unaccounted == report.usage["input_tokens"] - report.total
    )
    assert report.tokenizer == get_tokenizer().name and report.estimated is False


def test_cache_prediction_rules() -> None:
    assert predicted_cached(1023) == 0
    assert predicted_cached(1024) == 1024
    assert predicted_cached(1300) == 1280
